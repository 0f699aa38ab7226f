package io.ibemu.udev;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

class RulesOutcomeTest {

    /** What systemd 252's `udevadm test --action=add` printed here for umad0 with a user rule (trimmed). */
    private static final String OUT = """
            This program is for debugging only, it does not run any program
            specified by a RUN key. It may show incorrect results, because
            some values may be different, or not available at a simulation run.

            DEVPATH=/devices/pci0000:00/0000:00:10.0/0000:10:00.0/infiniband_mad/umad0
            DEVNAME=/dev/infiniband/umad0
            MAJOR=231
            MINOR=0
            ACTION=add
            SUBSYSTEM=infiniband_mad
            TAGS=:systemd:
            DEVLINKS=/dev/infiniband/by-port/ibemu0-1 /dev/infiniband/by-guid/0011:7500:0000:0100-port1
            run: '/bin/sh -c 'env >> /tmp/log''
            run: '/bin/echo second'
            """;
    private static final String ERR = """
            Reading rules file: /etc/udev/rules.d/70-ibemu-test.rules
            umad0: /etc/udev/rules.d/70-ibemu-test.rules:1 GROUP 109
            umad0: Setting permissions /dev/infiniband/umad0, uid=0, gid=109, mode=0660
            umad1: not this device
            """;

    @Test
    void propertiesRunListAndDeviceLog() {
        RulesOutcome o = RulesOutcome.parse(OUT, ERR, "umad0");
        assertEquals("/dev/infiniband/umad0", o.properties().get("DEVNAME"));
        assertEquals(List.of("DEVPATH", "DEVNAME", "MAJOR", "MINOR", "ACTION", "SUBSYSTEM", "TAGS", "DEVLINKS"),
                List.copyOf(o.properties().keySet()));
        assertEquals(List.of("/bin/sh -c 'env >> /tmp/log'", "/bin/echo second"), o.run());
        assertEquals(List.of("/dev/infiniband/by-port/ibemu0-1", "/dev/infiniband/by-guid/0011:7500:0000:0100-port1"),
                o.links());
        assertEquals(List.of("/etc/udev/rules.d/70-ibemu-test.rules:1 GROUP 109",
                "Setting permissions /dev/infiniband/umad0, uid=0, gid=109, mode=0660"), o.log());
    }

    @Test
    void theLastAssignedModeOwnerAndGroupAndASkippedNode() {
        String err = String.join("\n", "issm0: /etc/udev/rules.d/70-a.rules:1 GROUP 109",
                "issm0: /etc/udev/rules.d/70-a.rules:1 MODE 0660", "issm0: /etc/udev/rules.d/71-b.rules:3 MODE 0640",
                "issm0: /etc/udev/rules.d/71-b.rules:3 OWNER 65534",
                "issm0: Device node /dev/infiniband/issm0 is missing, skipping handling.");
        RulesOutcome o = RulesOutcome.parse("DEVNAME=/dev/infiniband/issm0\n", err, "issm0");
        assertEquals(java.util.OptionalInt.of(0640), o.mode());
        assertEquals(java.util.OptionalInt.of(65534), o.owner());
        assertEquals(java.util.OptionalInt.of(109), o.group());
        assertTrue(o.nodeSkipped());
        RulesOutcome none = RulesOutcome.parse("", "umad0: Setting permissions /dev/infiniband/umad0, uid=0, gid=109, mode=0660", "umad0");
        assertTrue(none.mode().isEmpty() && none.owner().isEmpty() && none.group().isEmpty());
        assertFalse(none.nodeSkipped());
    }

    @Test
    void noLinksNoRun() {
        RulesOutcome o = RulesOutcome.parse("ACTION=change\nSUBSYSTEM=infiniband\n", "", "ibemu0");
        assertTrue(o.links().isEmpty());
        assertTrue(o.run().isEmpty());
    }

    @Test
    void runWordsAsUdevdSplitsThem() {
        assertEquals(List.of("/bin/sh", "-c", "env >> /tmp/log"), RunProgram.of("/bin/sh -c 'env >> /tmp/log'").argv());
        assertEquals(List.of("/bin/echo", "a b", "c\\d", "e"), RunProgram.of("/bin/echo \"a b\"  c\\d e").argv());
        assertEquals(List.of("/usr/lib/udev/rdma_rename", "mlx5_0"), RunProgram.of("rdma_rename mlx5_0").argv());
        assertTrue(RunProgram.of("kmod load ib_qib").builtin());
        assertFalse(RunProgram.of("/bin/true").builtin());
        assertEquals(List.of("/bin/x", "open quote"), RunProgram.of("/bin/x 'open quote").argv());
    }
}
