package io.ibemu.emulator.control;

import io.ibemu.emulator.mad.MgmtClass;
import io.ibemu.emulator.mad.PerfAttribute;
import io.ibemu.emulator.mad.SmAttribute;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/** The words of {@code drop}: a rate, and an attribute by its IBA name or its id. */
final class DropAttributes {
    /** An attribute id, and the management classes its name belongs to (empty: any class). */
    record Attribute(String name, int id, int[] classes) {
    }

    private static final int[] SMP = {MgmtClass.SUBN_LID_ROUTED, MgmtClass.SUBN_DIRECTED_ROUTE};
    private static final int[] PERF = {MgmtClass.PERF};
    private static final Map<String, Attribute> NAMES = new LinkedHashMap<>();

    static {
        sm("Notice", SmAttribute.NOTICE);
        sm("NodeDescription", SmAttribute.NODE_DESCRIPTION);
        sm("NodeInfo", SmAttribute.NODE_INFO);
        sm("SwitchInfo", SmAttribute.SWITCH_INFO);
        sm("GUIDInfo", SmAttribute.GUID_INFO);
        sm("PortInfo", SmAttribute.PORT_INFO);
        sm("P_KeyTable", SmAttribute.P_KEY_TABLE);
        sm("SLtoVLMappingTable", SmAttribute.SL_TO_VL_MAPPING_TABLE);
        sm("VLArbitrationTable", SmAttribute.VL_ARBITRATION_TABLE);
        sm("LinearForwardingTable", SmAttribute.LINEAR_FORWARDING_TABLE);
        sm("RandomForwardingTable", SmAttribute.RANDOM_FORWARDING_TABLE);
        sm("MulticastForwardingTable", SmAttribute.MULTICAST_FORWARDING_TABLE);
        sm("SMInfo", SmAttribute.SM_INFO);
        sm("VendorDiag", SmAttribute.VENDOR_DIAG);
        sm("LedInfo", SmAttribute.LED_INFO);
        NAMES.put("classportinfo", new Attribute("ClassPortInfo", PerfAttribute.CLASS_PORT_INFO, new int[0]));
        perf("PortSamplesControl", PerfAttribute.PORT_SAMPLES_CONTROL);
        perf("PortSamplesResult", PerfAttribute.PORT_SAMPLES_RESULT);
        perf("PortCounters", PerfAttribute.PORT_COUNTERS);
        perf("PortCountersExtended", PerfAttribute.PORT_COUNTERS_EXTENDED);
    }

    private DropAttributes() {
    }

    private static void sm(String name, int id) {
        NAMES.put(name.toLowerCase(Locale.ROOT), new Attribute(name, id, SMP));
    }

    private static void perf(String name, int id) {
        NAMES.put(name.toLowerCase(Locale.ROOT), new Attribute(name, id, PERF));
    }

    /** A name (case-insensitive; P_KeyTable also as PKeyTable) or an id, 0x15 or 21. */
    static Attribute parse(String word) throws ControlException {
        String key = word.toLowerCase(Locale.ROOT);
        Attribute a = NAMES.get(key.equals("pkeytable") ? "p_keytable" : key);
        if (a != null) {
            return a;
        }
        try {
            int id = word.startsWith("0x") || word.startsWith("0X") ? Integer.parseInt(word.substring(2), 16)
                    : Integer.parseInt(word);
            if (id >= 0 && id <= 0xFFFF) {
                return new Attribute(String.format("attribute 0x%04x", id), id, new int[0]);
            }
        } catch (NumberFormatException e) {
            // not a number either: the message below lists the names
        }
        StringBuilder names = new StringBuilder();
        for (Attribute n : NAMES.values()) {
            names.append(names.length() == 0 ? "" : ", ").append(n.name());
        }
        throw new ControlException("no attribute '" + word + "': give an attribute id such as 0x15, or one of "
                + names);
    }

    /** 0..1 as a fraction, or a percentage written with %. */
    static double rate(String word) throws ControlException {
        boolean percent = word.endsWith("%");
        double r;
        try {
            r = Double.parseDouble(percent ? word.substring(0, word.length() - 1) : word);
        } catch (NumberFormatException e) {
            r = Double.NaN;
        }
        if (percent) {
            r /= 100;
        }
        if (!(r >= 0 && r <= 1)) {
            throw new ControlException("drop rate '" + word + "' is not in 0..1 or 0%..100%"
                    + (!percent && r > 1 && r <= 100 ? " (for a percentage write " + word + "%)" : ""));
        }
        return r;
    }
}
