package io.ibemu.emulator.mad;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The Congestion Control attributes, PortInfoExtended and the Mellanox vendor attributes: byte
 * positions against ib_types.h, libibmad's fields.c and vendstat.c's structs; round trips.
 */
class CongestionAndVendorLayoutTest {
    private static final List<RecordCodec<?>> ALL = List.of(CongestionInfo.CODEC, CongestionKeyInfo.CODEC,
            SwitchCongestionLog.CODEC, CaCongestionLog.CODEC, SwitchCongestionSetting.CODEC,
            SwitchPortCongestionSetting.CODEC, CaCongestionSetting.CODEC, CongestionControlTable.CODEC,
            TimeStamp.CODEC, MlnxExtPortInfo.CODEC, PortInfoExtended.CODEC, MellanoxGeneralInfo.CODEC);

    @Test
    void everyRecordSurvivesDecodeEncodeDecode() {
        Random r = new Random(7);
        for (RecordCodec<?> codec : ALL) {
            for (int i = 0; i < 30; i++) {
                roundTrip(codec, r);
            }
        }
    }

    private static <R extends Record> void roundTrip(RecordCodec<R> codec, Random r) {
        byte[] raw = new byte[codec.layout().sizeBytes()];
        r.nextBytes(raw);
        if (codec == (Object) MellanoxGeneralInfo.CODEC) {
            for (int i = 48; i < 64; i++) {
                raw[i] = (byte) ('A' + r.nextInt(26)); // the PSID is text
            }
        }
        R first = codec.decode(raw, 0);
        byte[] again = codec.encode(first);
        assertEquals(first, codec.decode(again, 0), codec.layout().name());
        for (Field f : codec.layout().fields()) {
            for (int k = 0; k < f.count(); k++) {
                if (f.bitWidth() <= 64) {
                    assertEquals(f.get(raw, 0, k), f.get(again, 0, k), codec.layout().name() + "." + f.name());
                }
            }
        }
    }

    private static List<Integer> ints(int n, int first, int step) {
        List<Integer> l = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            l.add(first + i * step);
        }
        return l;
    }

    @Test
    void congestionKeyInfoAsIbTypes() {
        byte[] b = CongestionKeyInfo.CODEC.encode(new CongestionKeyInfo(0x0102030405060708L, true, 0x1112, 0x2122));
        assertEquals(0x01, b[0]);
        assertEquals(0x08, b[7]);
        assertEquals(0x80, b[8] & 0xFF, "protect_bit: the top bit of a 16-bit word at 8");
        assertEquals(0x11, b[10]);
        assertEquals(0x12, b[11], "lease_period at 10");
        assertEquals(0x21, b[12]);
        assertEquals(0x22, b[13], "violations at 12");
    }

    @Test
    void switchCongestionSettingAsIbTypes() {
        List<Integer> victim = new ArrayList<>(Collections.nCopies(32, 0));
        victim.set(31, 0x06); // ports 1 and 2
        List<Integer> credit = new ArrayList<>(Collections.nCopies(32, 0));
        credit.set(0, 0x80); // port 255
        byte[] b = SwitchCongestionSetting.CODEC.encode(
                new SwitchCongestionSetting(0x1, victim, credit, 0xF, 8, 0x3, (2 << 14) | 5, 0x0102));
        assertEquals(1, b[3], "control_map at 0");
        assertEquals(0x06, b[4 + 31], "victim_mask at 4, port 0 in its last byte");
        assertEquals(0x80, b[36] & 0xFF, "credit_mask at 36");
        assertEquals(0xF0, b[68] & 0xFF, "threshold: upper nibble of byte 68");
        assertEquals(8, b[69], "packet_size at 69");
        assertEquals(0x30, b[70] & 0xFF, "cs_threshold: upper nibble of the short at 70");
        assertEquals(0x80, b[72] & 0xFF, "cs_return_delay at 72, shift in the top 2 bits");
        assertEquals(5, b[73]);
        assertEquals(0x01, b[74]);
        assertEquals(0x02, b[75], "marking_rate at 74");
    }

    @Test
    void blocksOfPortsSlsAndTableEntries() {
        byte[] sp = SwitchPortCongestionSetting.CODEC.encode(new SwitchPortCongestionSetting(
                ints(32, 1, 0), ints(32, 0, 0), ints(32, 0xA, 0), ints(32, 0, 1), ints(32, 0x300, 1)));
        assertEquals(0x8A, sp[4] & 0xFF, "element 1: valid bit 7, threshold low nibble");
        assertEquals(1, sp[5], "element 1 packet size");
        assertEquals(0x03, sp[6]);
        assertEquals(0x01, sp[7], "element 1 marking rate");

        byte[] cs = CaCongestionSetting.CODEC.encode(new CaCongestionSetting(1, 0xFFFF, ints(16, 0x100, 1),
                ints(16, 1, 0), ints(16, 2, 0), ints(16, 3, 0)));
        assertEquals(1, cs[1], "port_control at 0");
        assertEquals(0x01, cs[4 + 8], "SL 1 ccti_timer at 4 + 8");
        assertEquals(0x01, cs[4 + 8 + 1]);
        assertEquals(1, cs[4 + 8 + 2], "ccti_increase");
        assertEquals(2, cs[4 + 8 + 3], "trigger_threshold");
        assertEquals(3, cs[4 + 8 + 4], "ccti_min");

        byte[] t = CongestionControlTable.CODEC.encode(new CongestionControlTable(127, ints(64, 2, 0),
                ints(64, 0, 1)));
        assertEquals(127, t[1], "ccti_limit at 0");
        assertEquals(0x80, t[4 + 2 * 5] & 0xFF, "entry 5: shift in the top two bits");
        assertEquals(5, t[4 + 2 * 5 + 1], "entry 5: multiplier below");
    }

    @Test
    void logsAsIbccquery() {
        List<Integer> zero15 = Collections.nCopies(SwitchCongestionLog.EVENTS, 0);
        byte[] sw = SwitchCongestionLog.CODEC.encode(new SwitchCongestionLog(1, 0, 3, 0x01020304,
                Collections.nCopies(32, 0), ints(15, 1, 0), zero15, zero15, zero15));
        assertEquals(1, sw[0]);
        assertEquals(3, sw[3], "LogEventsCounter at 2");
        assertEquals(4, sw[7], "CurrentTimeStamp at 4");
        assertEquals(1, sw[40 + 12 + 1], "event 1's SLID at 40 + 12");
        List<Integer> zero13 = Collections.nCopies(CaCongestionLog.EVENTS, 0);
        byte[] ca = CaCongestionLog.CODEC.encode(new CaCongestionLog(2, 0, 0, 0, 0x01020304, ints(13, 7, 0),
                zero13, zero13, zero13, zero13, zero13, zero13));
        assertEquals(2, ca[0]);
        assertEquals(4, ca[11], "CurrentTimeStamp at 8");
        assertEquals(7, ca[12 + 16 + 2], "event 1's local QP at 12 + 16");
    }

    @Test
    void vendorAttributesAsTheirStructs() {
        byte[] epi = MlnxExtPortInfo.CODEC.encode(new MlnxExtPortInfo(1, 1, 1, 1));
        assertEquals(1, epi[3], "state_change_enable at 3");
        assertEquals(1, epi[7], "link_speed_supported at 7");
        assertEquals(1, epi[11], "link_speed_enabled at 11");
        assertEquals(1, epi[15], "link_speed_active at 15");

        byte[] pie = PortInfoExtended.CODEC.encode(new PortInfoExtended(1, 2, 3, 4, 5, 6, 7, 8, 9, 10));
        assertEquals(1, pie[3], "CapMask at 0");
        for (int i = 1; i <= 9; i++) {
            assertEquals(i + 1, pie[4 + 2 * (i - 1) + 1], "16-bit word " + i);
        }

        byte[] gi = MellanoxGeneralInfo.CODEC.encode(new MellanoxGeneralInfo(0xA0, 0xD2F0, 0x11223344, 27, 2, 3,
                0x55, 0x12, 0x31, 0x2026, 0x0930, "MT_0000000001", 9, 27, 2008, 1000, 1, 2, 3));
        assertEquals(0xD2, gi[2] & 0xFF, "hw_info.device_id at 2");
        assertEquals(0x44, gi[31], "hw_info.uptime at 28");
        assertEquals(27, gi[33], "fw_info.major at 33");
        assertEquals(0x55, gi[39], "fw_info.build_id at 36");
        assertEquals(0x12, gi[40], "month at 40");
        assertEquals(0x26, gi[43], "year at 42");
        assertEquals(0x30, gi[47], "hour at 46");
        assertEquals('M', gi[48], "psid at 48");
        assertEquals(9, gi[67], "ini_file_version at 64");
        assertEquals(27, gi[71], "ext_fw_info.ext_major at 68");
        assertEquals(0x07, gi[74], "ext_minor at 72");
        assertEquals(0xD8, gi[75] & 0xFF);
        assertEquals(1, gi[97], "sw_info.major at 97 (after 16 reserved bytes)");
    }
}
