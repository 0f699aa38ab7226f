package io.ibemu.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Several local HCAs with an identity file: each gets the device name, firmware, type and
 * board id the file gives it (by node id or by node GUID), the rest keep the defaults, and the
 * GUIDs and ports come from the topology. Two dual-port HCAs give four umad and issm devices.
 */
class IdentityTest {
    static final Path TOPOLOGY = Ibemu.root().resolve("integration-tests/src/test/resources/topology/two-level.net");
    static final Path IDENTITY = Ibemu.root().resolve("integration-tests/src/test/resources/identity/two-hosts.ini");

    @Test
    void identityFileNamesAndDescribesEachLocalHca() {
        try (Ibemu ib = Ibemu.start("--topology", TOPOLOGY.toString(), "--local", "host1", "--local",
                "0x0011750000000200", "--identity", IDENTITY.toString())) {
            assertEquals(List.of("mlx5_3", "mlx5_4"), ib.exec("ibstat", "-l").assertOk().lines());
            String first = ib.exec("ibstat", "mlx5_3").assertOk().stdout();
            assertTrue(first.contains("CA type: MT4123"), first);
            assertTrue(first.contains("Firmware version: 20.31.1014"), first);
            assertTrue(first.contains("Node GUID: 0x0011750000000100"), first);
            assertEquals("MT_0000000010", ib.cat("/sys/class/infiniband/mlx5_3/board_id").strip());
            String second = ib.exec("ibstat", "mlx5_4").assertOk().stdout();
            assertTrue(second.contains("Firmware version: 1.0.0"), "defaults where the file is silent: " + second);
            assertTrue(second.contains("Node GUID: 0x0011750000000200"), second);
            assertEquals("mlx5_4", ib.cat("/sys/class/infiniband_mad/umad2/ibdev").strip());
            assertEquals("1", ib.cat("/sys/class/infiniband_mad/umad2/port").strip());
            assertEquals("2", ib.cat("/sys/class/infiniband_mad/umad3/port").strip());
            Result devs = ib.exec("ls", "/dev/infiniband").assertOk();
            assertEquals(List.of("issm0", "issm1", "issm2", "issm3", "rdma_cm", "umad0", "umad1", "umad2", "umad3", "uverbs0",
                    "uverbs1"), devs.lines());
            assertEquals("mlx5_4", ib.cat("/sys/class/infiniband_verbs/uverbs1/ibdev").strip());
        }
    }
}
