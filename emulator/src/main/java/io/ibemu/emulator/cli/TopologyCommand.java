package io.ibemu.emulator.cli;

import io.ibemu.emulator.topology.Topology;
import io.ibemu.emulator.topology.TopologyException;
import io.ibemu.emulator.topology.TopologyParser;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

import java.io.IOException;
import java.nio.file.Path;
import java.util.concurrent.Callable;

/** {@code topology check FILE}: parse and validate without starting anything. */
@Command(name = "topology", mixinStandardHelpOptions = true, description = "Topology file tools.",
        subcommands = TopologyCommand.Check.class)
final class TopologyCommand implements Runnable {

    @Override
    public void run() {
        System.err.println("usage: topology check FILE");
    }

    @Command(name = "check", mixinStandardHelpOptions = true,
            description = "Validate an ibsim net file or ibnetdiscover output; exit 0 when it is sound.")
    static final class Check implements Callable<Integer> {
        @Parameters(index = "0", paramLabel = "FILE")
        Path file;

        @Override
        public Integer call() {
            try {
                Topology t = TopologyParser.parse(file);
                System.out.println(file + ": " + t.nodes().size() + " nodes, " + t.links().size() + " links: ok");
                return 0;
            } catch (TopologyException e) {
                System.err.println(e.getMessage());
                return 1;
            } catch (IOException e) {
                System.err.println(file + ": " + e.getMessage());
                return 1;
            }
        }
    }
}
