package io.ibemu.emulator.control;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.SocketException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.Channels;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * Serves {@link Console} on a Unix-domain stream socket: one request line in, the reply's lines
 * out, closed by a line {@code ok} or {@code error: <what to change>}. A connection may send many
 * requests, one after the other. One thread accepts; each connection is read on its own thread,
 * so a client that stalls holds up no one.
 */
public final class ControlServer implements AutoCloseable {
    public static final String SOCKET = "control.sock";
    public static final String OK = "ok";
    public static final String ERROR = "error: ";
    /** A request is one line; longer ones are refused rather than buffered without end. */
    static final int MAX_LINE = 1 << 20;

    private final Console console;
    private final Path socket;
    private final ServerSocketChannel server;
    private final ExecutorService connections;
    private final Thread acceptor;
    private volatile boolean closed;

    private ControlServer(Console console, Path socket, ServerSocketChannel server) {
        this.console = console;
        this.socket = socket;
        this.server = server;
        this.connections = Executors.newCachedThreadPool(r -> {
            Thread t = new Thread(r, "control-connection");
            t.setDaemon(true);
            return t;
        });
        this.acceptor = new Thread(this::accept, "control-accept");
        this.acceptor.setDaemon(true);
    }

    /**
     * Binds {@code dir/control.sock}, mode 0600, and starts serving. The socket is bound under a
     * temporary name and renamed once its mode is set, so no one connects before that.
     */
    public static ControlServer start(Console console, Path dir) throws IOException {
        Path socket = dir.resolve(SOCKET);
        Path temporary = dir.resolve(SOCKET + ".new");
        Files.deleteIfExists(temporary);
        ServerSocketChannel server = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
        try {
            try {
                server.bind(UnixDomainSocketAddress.of(temporary));
            } catch (SocketException e) {
                // sun_path holds 108 bytes: a deep state directory does not fit
                throw new IOException("cannot bind the control socket " + temporary + " (" + e.getMessage()
                        + "); a Unix socket path has at most 107 bytes: use a shorter IBEMU_STATE_DIR", e);
            }
            Files.setPosixFilePermissions(temporary, PosixFilePermissions.fromString("rw-------"));
            Files.move(temporary, socket, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException | RuntimeException e) {
            server.close();
            Files.deleteIfExists(temporary);
            throw e;
        }
        ControlServer s = new ControlServer(console, socket, server);
        s.acceptor.start();
        return s;
    }

    public Path socket() {
        return socket;
    }

    private void accept() {
        while (!closed) {
            try {
                SocketChannel c = server.accept();
                connections.execute(() -> serve(c));
            } catch (ClosedChannelException e) {
                return;
            } catch (IOException e) {
                if (!closed) {
                    System.err.println("ibemu: control socket: " + e.getMessage());
                }
            }
        }
    }

    private void serve(SocketChannel channel) {
        try (channel;
             BufferedReader in = new BufferedReader(new InputStreamReader(Channels.newInputStream(channel),
                     StandardCharsets.UTF_8));
             OutputStream out = Channels.newOutputStream(channel)) {
            String line;
            while ((line = readLine(in)) != null) {
                out.write(answer(line).getBytes(StandardCharsets.UTF_8));
                out.flush();
            }
        } catch (IOException e) {
            // the client went away mid-reply: nothing to tell it
        }
    }

    /** A line without its end, null at the end of input; refuses one beyond {@link #MAX_LINE}. */
    private static String readLine(BufferedReader in) throws IOException {
        StringBuilder b = new StringBuilder();
        int c;
        while ((c = in.read()) >= 0) {
            if (c == '\n') {
                return b.toString();
            }
            if (b.length() >= MAX_LINE) {
                throw new IOException("request line longer than " + MAX_LINE);
            }
            b.append((char) c);
        }
        return b.length() > 0 ? b.toString() : null;
    }

    /** The whole reply to one request line; the console runs here, the writing happens after. */
    String answer(String line) {
        StringBuilder reply = new StringBuilder();
        try {
            List<String> body = console.execute(RequestLine.split(line.endsWith("\r")
                    ? line.substring(0, line.length() - 1) : line));
            for (String l : body) {
                reply.append(l).append('\n');
            }
            reply.append(OK).append('\n');
        } catch (ControlException e) {
            reply.append(ERROR).append(oneLine(e.getMessage())).append('\n');
        } catch (RuntimeException e) {
            // a bug must not end the server: the client hears it and the daemon keeps serving
            reply.append(ERROR).append("internal error: ").append(oneLine(String.valueOf(e))).append('\n');
            e.printStackTrace();
        }
        return reply.toString();
    }

    private static String oneLine(String s) {
        return s == null ? "" : s.replace('\n', ' ');
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        try {
            server.close();
        } catch (IOException ignored) {
            // closing: nothing left to do with it
        }
        connections.shutdownNow();
        try {
            Files.deleteIfExists(socket);
        } catch (IOException ignored) {
            // the launcher removes the state directory anyway
        }
    }
}
