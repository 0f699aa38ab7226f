package io.ibemu.udev;

import java.util.Map;
import java.util.Objects;
import java.util.function.Supplier;

/**
 * A device as uevents name it: its path below /sys (e.g. {@code /devices/pci0000:00/0000:00:10.0}),
 * its subsystem, and the variables its uevent callbacks add (what its {@code uevent} file shows:
 * MAJOR, MINOR, DEVNAME, DRIVER, NAME...), computed when asked, in the kernel's order.
 */
public record Kobject(String devpath, String subsystem, Supplier<Map<String, String>> ueventVariables) {

    public Kobject {
        Objects.requireNonNull(subsystem, "subsystem");
        Objects.requireNonNull(ueventVariables, "ueventVariables");
        if (!devpath.startsWith("/devices/")) {
            throw new IllegalArgumentException("a devpath starts with /devices/: " + devpath);
        }
    }

    /** The uevent file's text: KEY=VALUE lines (dev_uevent and the bus/class uevent callback). */
    public String ueventText() {
        StringBuilder b = new StringBuilder();
        ueventVariables.get().forEach((k, v) -> b.append(k).append('=').append(v).append('\n'));
        return b.toString();
    }
}
