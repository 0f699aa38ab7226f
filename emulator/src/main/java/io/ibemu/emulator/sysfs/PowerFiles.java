package io.ibemu.emulator.sysfs;

import io.ibemu.kernel.Errno;
import io.ibemu.sysfstree.SysDir;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A device's power/ group (drivers/base/power/sysfs.c, runtime PM attributes): every registered
 * device has one, so udevadm lists ATTR{power/...} for each.
 */
final class PowerFiles {

    private static final long STARTED = System.nanoTime();

    private PowerFiles() {
    }

    /** A device with runtime PM enabled and active since start (a bound PCI function). */
    static void active(SysDir device) {
        add(device.dir("power"), "on", "active", true);
    }

    /** A class device: runtime PM not enabled for it, "unsupported" with zero times. */
    static void unsupported(SysDir device) {
        add(device.dir("power"), "auto", "unsupported", false);
    }

    private static void add(SysDir power, String initialControl, String status, boolean counting) {
        AtomicReference<String> control = new AtomicReference<>(initialControl);
        // control_store: "auto" allows runtime suspend, "on" forbids it; nothing else is taken
        power.attribute("control", () -> control.get() + "\n", value -> {
            String word = value.endsWith("\n") ? value.substring(0, value.length() - 1) : value;
            if (!word.equals("auto") && !word.equals("on")) {
                throw Errno.of(Errno.EINVAL);
            }
            control.set(word);
        });
        power.attribute("runtime_status", () -> status + "\n");
        power.attribute("runtime_active_time", () -> (counting ? (System.nanoTime() - STARTED) / 1_000_000 : 0) + "\n");
        power.attribute("runtime_suspended_time", () -> "0\n");
    }
}
