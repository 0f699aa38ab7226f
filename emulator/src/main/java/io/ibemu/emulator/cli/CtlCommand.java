package io.ibemu.emulator.cli;

import io.ibemu.emulator.capture.Frame;
import io.ibemu.emulator.capture.Pcap;
import io.ibemu.emulator.control.Console;
import io.ibemu.emulator.control.ControlClient;
import io.ibemu.emulator.control.ControlServer;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.io.BufferedOutputStream;
import java.io.BufferedReader;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.OutputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HexFormat;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;

/**
 * {@code ctl --state DIR COMMAND [ARG]...}: one control request to a running daemon through
 * DIR/control.sock; prints the reply, exits 0 on ok and 1 with the daemon's message otherwise.
 */
@Command(name = "ctl", description = "Change a running emulator's fabric.")
final class CtlCommand implements Callable<Integer> {
    /** Printed as it is: picocli would reflow the command table and read its % signs as formats. */
    static final String USAGE = """
            Usage: ctl --state DIR COMMAND [ARG]...
            Send one control command to the daemon whose state directory is DIR (through
            DIR/control.sock) and print its reply: exit 0 on ok, 1 with its message otherwise.

            """ + Console.HELP;

    @Option(names = "--state", paramLabel = "DIR", description = "The daemon's state directory.")
    Path state;

    @Option(names = {"-h", "--help"}, description = "Show the commands.")
    boolean help;

    @Parameters(paramLabel = "COMMAND", arity = "0..*", description = "A command and its words.")
    List<String> words = new ArrayList<>();

    @Override
    public Integer call() {
        if (help) {
            System.out.print(USAGE);
            return 0;
        }
        if (state == null || words.isEmpty()) {
            System.err.print(USAGE);
            return 2;
        }
        if (words.get(0).equals(Console.CAPTURE)) {
            return capture(new ArrayList<>(words));
        }
        if (words.get(0).equals("draw")) {
            return draw(new ArrayList<>(words));
        }
        try {
            List<String> request = new ArrayList<>(words);
            if (request.size() == 3 && request.get(0).equals("node") && request.get(1).equals("add")
                    && request.get(2).equals("-")) {
                request.remove(2);
                request.addAll(new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8))
                        .lines().toList());
            }
            ControlClient.Reply reply = ControlClient.send(state, request);
            reply.lines().forEach(System.out::println);
            System.out.flush();
            if (!reply.ok()) {
                System.err.println("ibemu ctl: " + reply.error());
                return 1;
            }
            return 0;
        } catch (IOException e) {
            System.err.println("ibemu ctl: " + e.getMessage());
            return 1;
        }
    }

    /** {@code draw [-o OUT]}: the daemon's DOT, laid out by dot after OUT's extension (none: DOT on stdout). */
    private int draw(List<String> request) {
        Path output = null;
        int o = request.indexOf("-o");
        if (o >= 0) {
            if (o + 1 >= request.size()) {
                System.err.println("ibemu ctl: draw -o needs a file: OUT.svg, .png, .pdf or .dot");
                return 2;
            }
            output = Path.of(request.remove(o + 1));
            request.remove(o);
        }
        try {
            ControlClient.Reply reply = ControlClient.send(state, request);
            if (!reply.ok()) {
                System.err.println("ibemu ctl: " + reply.error());
                return 1;
            }
            return DrawingOutput.write(String.join("\n", reply.lines()) + "\n", output);
        } catch (IOException e) {
            System.err.println("ibemu ctl: " + e.getMessage());
            return 1;
        }
    }

    /**
     * {@code capture NODE/PORT [-c COUNT] [-y ERF|INFINIBAND] -w FILE}: the daemon's frames
     * written as pcap to FILE (- : stdout), ERF records unless -y says otherwise.
     */
    private int capture(List<String> request) {
        int w = request.indexOf("-w");
        if (w < 0 || w + 1 >= request.size()) {
            System.err.println("ibemu ctl: capture needs -w FILE (or -w - for stdout), e.g. "
                    + "capture local/1 -c 100 -w local.pcap");
            return 2;
        }
        String file = request.remove(w + 1);
        request.remove(w);
        Pcap.Linktype linktype = Pcap.Linktype.ERF;
        int y = request.indexOf("-y");
        if (y >= 0) {
            try {
                linktype = Pcap.Linktype.parse(y + 1 < request.size() ? request.remove(y + 1) : "");
            } catch (IllegalArgumentException e) {
                System.err.println("ibemu ctl: capture -y: " + e.getMessage());
                return 2;
            }
            request.remove(y);
        }
        boolean stdout = file.equals("-");
        try (PcapSink sink = new PcapSink(stdout ? null : Path.of(file), linktype)) {
            String error = ControlClient.stream(state, request, sink);
            if (error != null) {
                System.err.println("ibemu ctl: " + error);
                return 1;
            }
            return 0;
        } catch (IOException e) {
            // a reader that closed the pipe (tshark -c N) ends the capture, as for tcpdump
            System.err.println("ibemu ctl: capture: " + e.getMessage());
            return stdout ? 0 : 1;
        }
    }

    /**
     * A capture's reply lines written as pcap: the file (null: stdout) is made when the daemon
     * says the port is tapped, so a refused capture leaves none; other lines go to stderr.
     */
    private static final class PcapSink implements ControlClient.LineSink, AutoCloseable {
        private final Path file;
        private final Pcap.Linktype linktype;
        private OutputStream out;
        private Pcap pcap;

        PcapSink(Path file, Pcap.Linktype linktype) {
            this.file = file;
            this.linktype = linktype;
        }

        @Override
        public void line(String line) throws IOException {
            if (line.startsWith("frame ") && pcap != null) {
                String[] f = line.split(" ", 4);
                pcap.write(new Frame(Long.parseLong(f[1]), f[2].equals("out"), HexFormat.of().parseHex(f[3])));
            } else if (line.startsWith(ControlServer.CAPTURING)) {
                out = file == null ? new FileOutputStream(FileDescriptor.out)
                        : new BufferedOutputStream(Files.newOutputStream(file));
                pcap = new Pcap(out, linktype);
                System.err.println("ibemu ctl: " + line);
            } else if (!line.equals("idle")) {
                System.err.println("ibemu ctl: " + line);
            }
        }

        @Override
        public void close() {
            if (out != null) {
                try {
                    out.close();
                } catch (IOException ignored) {
                    // the reader is gone
                }
            }
        }
    }
}
