package io.ibemu.emulator.control;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.Channels;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** Sends one request to a daemon's control socket and collects its reply. */
public final class ControlClient {
    /** The reply: its body lines, and the error message if it ended in "error: ...". */
    public record Reply(List<String> lines, String error) {
        public boolean ok() {
            return error == null;
        }
    }

    private ControlClient() {
    }

    public static Reply send(Path stateDir, List<String> words) throws IOException {
        List<String> lines = new ArrayList<>();
        String error = stream(stateDir, words, lines::add);
        return new Reply(lines, error);
    }

    /** Hears the reply's lines as they arrive (a capture's stream). */
    @FunctionalInterface
    public interface LineSink {
        void line(String line) throws IOException;
    }

    /**
     * Sends one request and hands each body line to {@code sink} as it arrives; returns null
     * on ok, the daemon's message on error.
     */
    public static String stream(Path stateDir, List<String> words, LineSink sink) throws IOException {
        Path socket = stateDir.resolve(ControlServer.SOCKET);
        if (!Files.exists(socket)) {
            throw new IOException("no control socket " + socket + ": is the daemon running with --state "
                    + stateDir + "?");
        }
        try (SocketChannel channel = SocketChannel.open(StandardProtocolFamily.UNIX)) {
            channel.connect(UnixDomainSocketAddress.of(socket));
            OutputStream out = Channels.newOutputStream(channel);
            out.write((RequestLine.join(words) + "\n").getBytes(StandardCharsets.UTF_8));
            out.flush();
            BufferedReader in = new BufferedReader(new InputStreamReader(Channels.newInputStream(channel),
                    StandardCharsets.UTF_8));
            String line;
            while ((line = in.readLine()) != null) {
                if (line.equals(ControlServer.OK)) {
                    return null;
                }
                if (line.startsWith(ControlServer.ERROR)) {
                    return line.substring(ControlServer.ERROR.length());
                }
                sink.line(line);
            }
            throw new IOException("the daemon closed the control connection without an answer");
        }
    }
}
