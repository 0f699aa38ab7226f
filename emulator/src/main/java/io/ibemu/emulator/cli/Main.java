package io.ibemu.emulator.cli;

import picocli.CommandLine;
import picocli.CommandLine.Command;

/** Entry point of emulator.jar; scripts/ibemu is the user-facing launcher around it. */
@Command(name = "ibemu", mixinStandardHelpOptions = true, version = "ibemu 0.1",
        description = "Emulated InfiniBand devices and fabric over FUSE.",
        subcommands = {DaemonCommand.class, TopologyCommand.class})
public final class Main implements Runnable {

    public static void main(String[] args) {
        int code = new CommandLine(new Main()).execute(args);
        if (code != 0 || !DaemonCommand.running()) {
            System.exit(code);
        }
    }

    @Override
    public void run() {
        new CommandLine(this).usage(System.out);
    }
}
