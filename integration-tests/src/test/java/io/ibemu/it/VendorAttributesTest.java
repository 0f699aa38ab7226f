package io.ibemu.it;

import static io.ibemu.it.ToolOutput.number;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * What infiniband-diags reads beyond the IBA's base attributes, on Mellanox-id switches and HCAs
 * of several generations under {@code --sm preset} (no SM that would undo ibportstate's changes):
 * PortInfoExtended on HDR ports, Mellanox ExtendedPortInfo (0xFF90) and its FDR10, the vendor
 * class 0x0A's GeneralInfo for vendstat -N, ibportstate's query and its speed, width, fdr10,
 * enable, disable and reset, which retrain the link at both ends; discovery without 0xff90 errors.
 */
class VendorAttributesTest {
    static Ibemu ib;
    static String quantum;
    static String switchIb;
    static String cx6;
    static String qib;

    @BeforeAll
    static void up() {
        ib = Ibemu.start("--topology", CongestionControlTest.TOPOLOGY.toString(), "--local", "cx6", "--sm", "preset");
        String switches = ib.exec("ibswitches").assertOk().stdout();
        quantum = CongestionControlTest.lid(switches, "quantum switch");
        switchIb = CongestionControlTest.lid(switches, "switch-ib switch");
        cx6 = lidAt("0");
        qib = lidAt("0,1,8,2");
    }

    @AfterAll
    static void down() {
        if (ib != null) {
            ib.close();
        }
    }

    static String lidAt(String path) {
        return Long.toString(number(portInfo("-D", path).get("Lid")));
    }

    /** smpquery portinfo by LID, or with "-D" first by directed route. */
    static Map<String, String> portInfo(String... address) {
        String[] cmd = new String[address.length + 2];
        cmd[0] = "smpquery";
        cmd[1] = "portinfo";
        System.arraycopy(address, 0, cmd, 2, address.length);
        if (address[0].equals("-D")) {
            cmd[1] = "-D";
            cmd[2] = "portinfo";
        }
        return ToolOutput.smpFields(ib.exec(cmd).assertOk().stdout());
    }

    static Map<String, String> smp(String... args) {
        String[] cmd = new String[args.length + 1];
        cmd[0] = "smpquery";
        System.arraycopy(args, 0, cmd, 1, args.length);
        return ToolOutput.smpFields(ib.exec(cmd).assertOk().stdout());
    }

    @Test
    void portInfoExtendedOnHdrPorts() {
        assertTrue((number(portInfo(cx6).get("CapabilityMask2")) & 0x2) != 0, "an HDR CA advertises PortInfoExtended");
        Map<String, String> pie = smp("PIE", quantum, "1");
        assertEquals("0x00000001", pie.get("CapMask"), "IsFECModeSupported: " + pie);
        assertEquals("3", pie.get("FECModeActive"), "low-latency RS-FEC, the best both ends enable: " + pie);
        assertEquals("0x0003", pie.get("FDRFECModeSupported"), pie.toString());
        assertEquals("0x000f", pie.get("EDRFECModeSupported"), pie.toString());
        assertEquals("0x000f", pie.get("EDRFECModeEnabled"), pie.toString());
        // libibmad 44 places its HDR/NDR labels without BITSOFFS: "NDRFECModeSupported" reads the
        // 16 bits at byte 16, where ib_types.h (and the SMA) keep HDRFECModeEnabled
        assertEquals("0x000d", pie.get("NDRFECModeSupported"), "HDR modes enabled (as libibmad labels them): " + pie);
        Result edr = ib.exec("smpquery", "PIE", switchIb, "8");
        assertFalse(edr.ok(), "an EDR switch does not advertise it, and smpquery does not ask: " + edr);
    }

    @Test
    void fecModesSettableAndReadBack() {
        Path smpSet = CPrograms.compile("smp_set");
        // the ConnectX-7's NDR link (quantum port 3): both ends enable RS-FEC and LL RS-FEC
        assertEquals("3", smp("PIE", quantum, "3").get("FECModeActive"), "LL RS-FEC on NDR");
        // NDRFECModeEnabled at byte 20 (ib_types.h): RS-FEC only at the switch end
        Result set = ib.exec(smpSet.toString(), quantum, "0x33", "3", "20=0x0004").assertOk();
        assertEquals("status 0x0\n20=0x0004", set.out(), "set and read back: " + set);
        assertEquals("2", smp("PIE", quantum, "3").get("FECModeActive"), "the link retrained to RS-FEC");
        assertEquals("2", portInfoExtendedAt("0,1,3"), "at the other end too");
        // Firecode is no NDR mode: refused, nothing changed
        Result bad = ib.exec(smpSet.toString(), quantum, "0x33", "3", "20=0x0002");
        assertEquals(1, bad.exitCode(), bad.toString());
        assertTrue(bad.out().startsWith("status 0x1c\n20=0x0004"), bad.toString());
    }

    static String portInfoExtendedAt(String path) {
        Result r = ib.exec("smpquery", "-D", "PIE", path, "1").assertOk();
        return ToolOutput.smpFields(r.stdout()).get("FECModeActive");
    }

    @Test
    void mellanoxExtendedPortInfo() {
        Map<String, String> fdr10 = smp("MEPI", switchIb, "1");
        assertEquals("0x01", fdr10.get("LinkSpeedSupported"), fdr10.toString());
        assertEquals("0x01", fdr10.get("LinkSpeedEnabled"), fdr10.toString());
        assertEquals("0x01", fdr10.get("LinkSpeedActive"), "the ConnectX-3 link runs FDR10: " + fdr10);
        Map<String, String> hdr = smp("MEPI", quantum, "1");
        assertEquals("0x00", hdr.get("LinkSpeedActive"), "an HDR link is not FDR10: " + hdr);
        assertEquals("0x00", smp("MEPI", switchIb, "2").get("LinkSpeedSupported"), "a QDR cable");
        Result qlogic = ib.exec("smpquery", "MEPI", qib);
        assertFalse(qlogic.ok(), "QLogic firmware has no 0xFF90: " + qlogic);
    }

    @Test
    void vendstatGeneralInfo() {
        Map<String, String> sw = vendstat(quantum);
        assertEquals("0xd2f0", sw.get("hw_dev_id"), sw.toString());
        assertEquals("27.00.00", sw.get("fw_version"), "Quantum firmware: " + sw);
        Map<String, String> ca = vendstat(cx6);
        assertEquals("0x101b", ca.get("hw_dev_id"), ca.toString());
        assertEquals("20.00.00", ca.get("fw_version"), "ConnectX-6 firmware: " + ca);
        assertFalse(ib.exec("vendstat", "-N", qib).ok(), "no Mellanox class on a QLogic HCA");
    }

    static Map<String, String> vendstat(String lid) {
        Result r = ib.exec("vendstat", "-N", lid).assertOk();
        Map<String, String> m = new java.util.HashMap<>();
        for (String line : r.lines()) {
            int colon = line.indexOf(':');
            if (colon > 0) {
                m.put(line.substring(0, colon).strip(), line.substring(colon + 1).strip());
            }
        }
        return m;
    }

    @Test
    void discoveryToolsAskNoAttributeInVain() {
        for (String tool : new String[] {"ibnetdiscover", "iblinkinfo", "ibswitches", "ibhosts", "ibnodes"}) {
            Result r = ib.exec(tool).assertOk();
            // libibnetdisc's "mad (... Attr 0xff90:N) bad status 0xc" (a MAD status, not a umad timeout)
            assertFalse(r.stderr().matches("(?s).*bad status 0x.*"), tool + ": " + r);
        }
    }

    @Test
    void ibportstateQuerySpeedWidthFdr10EnableDisableReset() {
        Result q = ib.exec("ibportstate", switchIb, "2", "query").assertOk();
        assertTrue(q.stdout().contains("# MLNX ext Port info: Lid " + switchIb + " port 2"), q.toString());
        assertTrue(q.stdout().contains("Peer PortInfo:"), "an Active switch port shows its peer: " + q);

        // width and speed: both ends of the switch-ib/qib link retrain to what both enable
        ib.exec("ibportstate", switchIb, "2", "width", "1").assertOk();
        assertEquals("1X", portInfo(switchIb, "2").get("LinkWidthActive"));
        Map<String, String> peer = portInfo("-D", "0,1,8,2", "1");
        assertEquals("1X", peer.get("LinkWidthActive"), "the other end trained to 1X: " + peer);
        assertEquals("LinkUp", peer.get("PhysLinkState"), peer.toString());
        ib.exec("ibportstate", switchIb, "2", "speed", "1").assertOk();
        assertEquals("2.5 Gbps", portInfo("-D", "0,1,8,2", "1").get("LinkSpeedActive"));

        // disable, then enable: the link comes back with what stays enabled
        ib.exec("ibportstate", switchIb, "2", "disable").assertOk();
        Map<String, String> off = portInfo(switchIb, "2");
        assertEquals("Disabled", off.get("PhysLinkState"), off.toString());
        assertEquals("Down", off.get("LinkState"), off.toString());
        ib.exec("ibportstate", switchIb, "2", "enable").assertOk();
        Map<String, String> on = portInfo("-D", "0,1,8,2", "1");
        assertEquals("LinkUp", on.get("PhysLinkState"), on.toString());
        assertEquals("1X", on.get("LinkWidthActive"), on.toString());

        // reset: down and up again, counted at both ends
        long downed = linkDowned(switchIb, "2");
        ib.exec("ibportstate", switchIb, "2", "reset").assertOk();
        assertEquals(downed + 1, linkDowned(switchIb, "2"), "the reset took the link down once");
        ib.exec("ibportstate", switchIb, "2", "width", "255").assertOk();
        ib.exec("ibportstate", switchIb, "2", "speed", "15").assertOk();
        assertEquals("4X", portInfo("-D", "0,1,8,2", "1").get("LinkWidthActive"), "back to the widest");
        assertEquals("10.0 Gbps", portInfo("-D", "0,1,8,2", "1").get("LinkSpeedActive"));

        // FDR10 is Mellanox's ExtendedPortInfo: disabling it retrains the ConnectX-3 link to QDR
        ib.exec("ibportstate", switchIb, "1", "fdr10", "0").assertOk();
        assertEquals("0x00", smp("MEPI", switchIb, "1").get("LinkSpeedActive"));
        assertEquals("0x00", smp("MEPI", switchIb, "1").get("LinkSpeedEnabled"), "read back as set");
        assertEquals("10.0 Gbps", portInfo("-D", "0,1,8,1", "1").get("LinkSpeedActive"));
        ib.exec("ibportstate", switchIb, "1", "fdr10", "1").assertOk();
        assertEquals("0x01", smp("MEPI", switchIb, "1").get("LinkSpeedActive"));

        // an extended speed: LinkSpeedExtEnabled 30 disables them, the EDR link falls to QDR
        ib.exec("ibportstate", quantum, "2", "espeed", "30").assertOk();
        Map<String, String> cx5 = portInfo("-D", "0,1,2", "1");
        assertEquals("10.0 Gbps", cx5.get("LinkSpeedActive"), cx5.toString());
        assertEquals("No Extended Speed", cx5.get("LinkSpeedExtActive"), cx5.toString());
    }

    static long linkDowned(String lid, String port) {
        Result r = ib.exec("perfquery", lid, port).assertOk();
        return FabricTest.counters(r.stdout()).get("LinkDownedCounter");
    }
}
