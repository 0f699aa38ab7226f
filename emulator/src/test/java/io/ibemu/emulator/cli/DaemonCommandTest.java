package io.ibemu.emulator.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** The launcher's daemon command line read without picocli gives what picocli gives; the rest is left to picocli. */
class DaemonCommandTest {

    private static DaemonCommand picocli(String... args) {
        CommandLine cli = new CommandLine(new Main());
        CommandLine.ParseResult parsed = cli.parseArgs(args);
        return (DaemonCommand) parsed.subcommand().commandSpec().userObject();
    }

    @Test
    void theLaunchersOptionsReadAsPicocliReadsThem() {
        String[] args = {"daemon", "--state", "/var/tmp/ibemu/x", "--topology", "/tmp/f.net",
            "--local", "H-0002c903000e0b72", "--local", "0x2", "--identity", "/tmp/id"};
        DaemonCommand fast = DaemonCommand.fromLauncher(args);
        DaemonCommand slow = picocli(args);
        assertNotNull(fast);
        assertEquals(slow.state, fast.state);
        assertEquals(slow.topology, fast.topology);
        assertEquals(slow.locals, fast.locals);
        assertEquals(slow.identity, fast.identity);
        assertEquals(List.of("H-0002c903000e0b72", "0x2"), fast.locals);
        assertEquals(Path.of("/var/tmp/ibemu/x"), fast.state);
    }

    @Test
    void ipoibAndItsNetworkReadAsPicocliReadsThem() {
        String[] args = {"daemon", "--state", "/s", "--ipoib", "--ipoib-net", "10.1.0.0/16", "--udev"};
        DaemonCommand fast = DaemonCommand.fromLauncher(args);
        DaemonCommand slow = picocli(args);
        assertNotNull(fast);
        assertEquals(slow.ipoib, fast.ipoib);
        assertEquals(true, fast.ipoib);
        assertEquals(slow.ipoibNet, fast.ipoibNet);
        assertEquals("10.1.0.0/16", fast.ipoibNet);
        assertEquals(true, fast.udev);
        DaemonCommand off = DaemonCommand.fromLauncher(new String[] {"daemon", "--state", "/s"});
        assertEquals(false, off.ipoib);
        assertEquals(picocli("daemon", "--state", "/s").ipoibNet, off.ipoibNet);
    }

    @Test
    void anythingElseIsLeftToPicocli() {
        assertNull(DaemonCommand.fromLauncher(new String[] {"daemon", "--help"}));
        assertNull(DaemonCommand.fromLauncher(new String[] {"daemon", "--state"}));
        assertNull(DaemonCommand.fromLauncher(new String[] {"daemon", "--topology", "/tmp/f.net"}), "no --state");
        assertNull(DaemonCommand.fromLauncher(new String[] {"daemon", "--state", "/s", "--bogus", "x"}));
        assertNull(DaemonCommand.fromLauncher(new String[] {"daemon", "--state", "--topology"}));
        assertNull(DaemonCommand.fromLauncher(new String[] {"topology", "--state", "/s"}));
        assertNull(DaemonCommand.fromLauncher(new String[0]));
    }
}
