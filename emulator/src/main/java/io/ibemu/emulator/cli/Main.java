package io.ibemu.emulator.cli;

import picocli.CommandLine;
import picocli.CommandLine.Command;

/** Entry point of emulator.jar; scripts/ibemu is the user-facing launcher around it. */
@Command(name = "ibemu", mixinStandardHelpOptions = true, version = "ibemu 0.1",
        description = "Emulated InfiniBand devices and fabric over FUSE.",
        subcommands = {DaemonCommand.class, TopologyCommand.class, CtlCommand.class, UiCommand.class, PlotCommand.class})
public final class Main implements Runnable {

    public static void main(String[] args) {
        DaemonCommand daemon = DaemonCommand.fromLauncher(args);
        if (daemon != null) {
            int code = daemon.call();
            if (code != 0 || !DaemonCommand.running()) {
                System.exit(code);
            }
            return;
        }
        CommandLine cli = new CommandLine(new Main());
        // ctl's words are the daemon's to read: "-" or "-1" after the command are not options
        cli.getSubcommands().get("ctl").setStopAtPositional(true);
        int code = cli.execute(args);
        if (code != 0 || !DaemonCommand.running()) {
            System.exit(code);
        }
    }

    @Override
    public void run() {
        new CommandLine(this).usage(System.out);
    }
}
