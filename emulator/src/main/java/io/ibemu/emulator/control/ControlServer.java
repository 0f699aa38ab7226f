package io.ibemu.emulator.control;

import io.ibemu.devfs.PrivateSocket;
import io.ibemu.emulator.capture.Capture;
import io.ibemu.emulator.capture.Frame;
import io.ibemu.kernel.Fatal;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * Serves {@link Console} on a Unix-domain stream socket: one request line in, the reply's lines
 * out, closed by a line {@code ok} or {@code error: <what to change>}. A connection may send many
 * requests, one after the other. One thread accepts; each connection is read on a thread of a
 * pool of at most {@link #MAX_CONNECTIONS}, so a client that stalls holds up no one else. Past
 * that many open connections a new one is answered {@code error: busy} and closed; a connection
 * that has neither sent a request nor taken its reply for {@link #IDLE_TIMEOUT_MS} is closed,
 * so idle clients cannot hold the pool. The accept loop outlives any error.
 */
public final class ControlServer implements AutoCloseable {
    public static final String SOCKET = "control.sock";
    public static final String OK = "ok";
    public static final String ERROR = "error: ";
    /** A request is one line; longer ones are refused rather than buffered without end. */
    static final int MAX_LINE = 1 << 20;
    /** Connections served at once; `ibemu ctl` opens one per call, scripts one for many. */
    static final int MAX_CONNECTIONS = 16;
    static final long IDLE_TIMEOUT_MS = 30_000;
    /** A capture with nothing to send says so this often, so a client that left is noticed. */
    static final long CAPTURE_IDLE_MS = 1_000;
    /** The first line of a capture's reply: from here on every packet is recorded. */
    public static final String CAPTURING = "capturing ";
    /** After an unexpected error (no threads, no memory) the acceptor waits this long, then goes on. */
    private static final long ACCEPT_RETRY_MS = 100;

    private final Console console;
    private final Path socket;
    private final ServerSocketChannel server;
    private final ThreadPoolExecutor connections;
    private final ScheduledExecutorService watchdog;
    private final long idleTimeoutMs;
    /** Open connections and when each last made progress (0 while a request runs). */
    private final Map<SocketChannel, Long> lastActive = new ConcurrentHashMap<>();
    private final Thread acceptor;
    private volatile boolean closed;

    private ControlServer(Console console, Path socket, ServerSocketChannel server, int maxConnections,
                          long idleTimeoutMs) {
        this.console = console;
        this.socket = socket;
        this.server = server;
        this.idleTimeoutMs = idleTimeoutMs;
        this.connections = new ThreadPoolExecutor(0, maxConnections, 10, TimeUnit.SECONDS, new SynchronousQueue<>(),
                r -> daemonThread(r, "control-connection"));
        ScheduledThreadPoolExecutor timer = new ScheduledThreadPoolExecutor(1, r -> daemonThread(r, "control-idle"));
        long period = Math.max(10, idleTimeoutMs / 4);
        timer.scheduleWithFixedDelay(this::closeIdle, period, period, TimeUnit.MILLISECONDS);
        this.watchdog = timer;
        this.acceptor = daemonThread(this::accept, "control-accept");
    }

    private static Thread daemonThread(Runnable r, String name) {
        Thread t = new Thread(r, name);
        t.setDaemon(true);
        return t;
    }

    /**
     * Binds {@code dir/control.sock}, mode 0600, and starts serving. The socket is bound under a
     * temporary name and renamed once its mode is set, so no one connects before that.
     */
    public static ControlServer start(Console console, Path dir) throws IOException {
        return start(console, dir, MAX_CONNECTIONS, IDLE_TIMEOUT_MS);
    }

    static ControlServer start(Console console, Path dir, int maxConnections, long idleTimeoutMs)
            throws IOException {
        Path socket = dir.resolve(SOCKET);
        ServerSocketChannel server = PrivateSocket.bind(socket, "the control socket");
        ControlServer s = new ControlServer(console, socket, server, maxConnections, idleTimeoutMs);
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
                lastActive.put(c, System.nanoTime());
                try {
                    connections.execute(() -> serve(c));
                } catch (RejectedExecutionException e) {
                    refuse(c);
                }
            } catch (ClosedChannelException e) {
                return;
            } catch (Throwable t) {
                // out of threads, memory or descriptors: later clients must still be accepted
                if (closed || Fatal.check(t, "control socket")) {
                    return;
                }
                System.err.println("ibemu: control socket: " + t);
                pause();
            }
        }
    }

    /** Past MAX_CONNECTIONS: one error line, written without blocking, and the connection closed. */
    private void refuse(SocketChannel c) {
        lastActive.remove(c);
        try (c) {
            c.configureBlocking(false);
            c.write(ByteBuffer.wrap((ERROR + "busy: " + connections.getMaximumPoolSize()
                    + " control connections open, try again\n").getBytes(StandardCharsets.UTF_8)));
        } catch (IOException e) {
            // the client is gone already
        }
    }

    private static void pause() {
        try {
            Thread.sleep(ACCEPT_RETRY_MS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Closes connections idle past the timeout; closing unblocks their thread's read or write. */
    private void closeIdle() {
        long now = System.nanoTime();
        for (Map.Entry<SocketChannel, Long> e : lastActive.entrySet()) {
            long since = e.getValue();
            if (since != 0 && now - since > TimeUnit.MILLISECONDS.toNanos(idleTimeoutMs)) {
                try {
                    e.getKey().close();
                } catch (IOException ignored) {
                    // closed either way
                }
                lastActive.remove(e.getKey());
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
                lastActive.replace(channel, 0L);
                if (isCapture(line)) {
                    streamCapture(line, out);
                    lastActive.replace(channel, System.nanoTime());
                    continue;
                }
                String reply = answer(line);
                lastActive.replace(channel, System.nanoTime());
                out.write(reply.getBytes(StandardCharsets.UTF_8));
                out.flush();
                lastActive.replace(channel, System.nanoTime());
            }
        } catch (IOException e) {
            // the client went away mid-reply, or was idle too long: nothing to tell it
        } finally {
            lastActive.remove(channel);
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

    private static boolean isCapture(String line) {
        String l = line.stripLeading();
        return l.regionMatches(true, 0, Console.CAPTURE, 0, Console.CAPTURE.length())
                && (l.length() == Console.CAPTURE.length() || Character.isWhitespace(l.charAt(Console.CAPTURE.length())));
    }

    /**
     * A capture's reply: {@code capturing PORT} once the port is tapped, a line {@code frame
     * NANOS in|out HEX} per packet as it crosses, a line
     * {@code idle} after each second without one (a write is how a client that left is noticed),
     * then a summary line and {@code ok}. The capture ends when the client goes away.
     */
    private void streamCapture(String line, OutputStream out) throws IOException {
        Capture capture;
        try {
            List<String> words = RequestLine.split(line.strip());
            capture = console.capture(words.subList(1, words.size()));
        } catch (ControlException e) {
            out.write((ERROR + oneLine(e.getMessage()) + "\n").getBytes(StandardCharsets.UTF_8));
            out.flush();
            return;
        }
        try (capture) {
            out.write((CAPTURING + capture.port() + "\n").getBytes(StandardCharsets.UTF_8));
            out.flush();
            long frames = 0;
            while (!capture.finished()) {
                Frame f = capture.next(CAPTURE_IDLE_MS);
                String l = f == null ? "idle\n" : "frame " + f.epochNanos() + (f.outbound() ? " out " : " in ")
                        + HexFormat.of().formatHex(f.octets()) + "\n";
                frames += f == null ? 0 : 1;
                out.write(l.getBytes(StandardCharsets.US_ASCII));
                out.flush();
            }
            out.write(("captured " + frames + " packets at " + capture.port() + (capture.dropped() > 0
                    ? ", " + capture.dropped() + " lost: the reader fell behind" : "") + "\n" + OK + "\n")
                    .getBytes(StandardCharsets.UTF_8));
            out.flush();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
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
        watchdog.shutdownNow();
        for (SocketChannel c : lastActive.keySet()) {
            try {
                c.close();
            } catch (IOException ignored) {
                // closing anyway
            }
        }
        try {
            Files.deleteIfExists(socket);
        } catch (IOException ignored) {
            // the launcher removes the state directory anyway
        }
    }
}
