package io.ibemu.emulator.sysfs;

/** Value formats of drivers/infiniband/core/sysfs.c and user_mad.c, one method per show(). */
final class SysfsFormat {
    private static final String[] PORT_STATES = {"NOP", "DOWN", "INIT", "ARMED", "ACTIVE", "ACTIVE_DEFER"};
    private static final String[] PHYS_STATES = {"<unknown>", "Sleep", "Polling", "Disabled",
        "PortConfigurationTraining", "LinkUp", "LinkErrorRecovery", "Phy Test"};

    private SysfsFormat() {
    }

    /** sys_image_guid / node_guid: four big-endian 16-bit groups. */
    static String guid(long guid) {
        return String.format("%04x:%04x:%04x:%04x%n", (guid >>> 48) & 0xffff, (guid >>> 32) & 0xffff,
                (guid >>> 16) & 0xffff, guid & 0xffff);
    }

    /** node_type_show. */
    static String nodeType(int code) {
        return switch (code) {
            case 1 -> "1: CA\n";
            case 2 -> "2: switch\n";
            case 3 -> "3: router\n";
            default -> code + ": <unknown>\n";
        };
    }

    /** state_show. */
    static String portState(int code) {
        String name = code >= 0 && code < PORT_STATES.length ? PORT_STATES[code] : "UNKNOWN";
        return code + ": " + name + "\n";
    }

    /** phys_state_show. */
    static String physState(int code) {
        String name = code > 0 && code < PHYS_STATES.length ? PHYS_STATES[code] : "<unknown>";
        return code + ": " + name + "\n";
    }

    /** rate_show: lanes times the per-lane rate of the speed, in Gb/sec. */
    static String rate(int lanes, String speed) {
        int deciGbPerLane = switch (speed) {
            case "DDR" -> 50;
            case "QDR", "FDR10" -> 100;
            case "FDR" -> 140;
            case "EDR" -> 250;
            case "HDR" -> 500;
            case "NDR" -> 1000;
            case "XDR" -> 2000;
            default -> 25;
        };
        String name = switch (speed) {
            case "DDR", "QDR", "FDR10", "FDR", "EDR", "HDR", "NDR", "XDR" -> speed;
            default -> "SDR";
        };
        int rate = deciGbPerLane * lanes;
        return rate / 10 + (rate % 10 != 0 ? ".5" : "") + " Gb/sec (" + lanes + "X " + name + ")\n";
    }

    /** show_port_gid: %pI6, eight groups of four hex digits. */
    static String gid(long prefix, long guid) {
        StringBuilder b = new StringBuilder(40);
        for (long half : new long[] {prefix, guid}) {
            for (int shift = 48; shift >= 0; shift -= 16) {
                if (b.length() > 0) {
                    b.append(':');
                }
                b.append(String.format("%04x", (half >>> shift) & 0xffff));
            }
        }
        return b.append('\n').toString();
    }

    static String hex(int value) {
        return "0x" + Integer.toHexString(value) + "\n";
    }

    static String line(Object value) {
        return value + "\n";
    }
}
