package io.ibemu.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * The verbs provider profile is the PCI parent's, not the MAD-level identity: an HCA the topology
 * makes a Mellanox ConnectX-5 (vendid/devid) still has QLogic 7322 PCI ids, so stock
 * libibverbs binds ipathverbs and opens it, while NodeInfo keeps the configured ids.
 */
class VerbsProfileTest {

    @Test
    void aMellanoxNodeInfoStillGetsTheWriteOnlyProvider() throws Exception {
        Path topology = Ibemu.tmpDir().resolve("verbs-profile.net");
        Files.writeString(topology, """
                vendid=0x2c9
                devid=0x1017
                caguid=0x0002c90300000001
                Hca 1 "cx5" # "host-cx5 HCA-1"
                [1] "sw"[1]
                Switch 8 "sw" # "edge switch" enhanced port 0
                [1] "cx5"[1]
                """);
        try (Ibemu ib = Ibemu.startWithTopology(topology, "cx5")) {
            assertEquals("0x1077", ib.cat("/sys/class/infiniband/ibemu0/device/vendor").strip());
            assertEquals("0x7322", ib.cat("/sys/class/infiniband/ibemu0/device/device").strip());
            Result info = ib.exec("ibv_devinfo", "-d", "ibemu0").assertOk();
            assertTrue(info.stdout().contains("vendor_id:\t\t\t0x02c9"), info.stdout());
            assertTrue(info.stdout().contains("vendor_part_id:\t\t\t4119"), info.stdout());
            Result nodeInfo = ib.exec("smpquery", "-D", "nodeinfo", "0").assertOk();
            assertTrue(nodeInfo.stdout().matches("(?s).*VendorId:\\.+0x0002c9.*"), nodeInfo.stdout());
        }
    }
}
