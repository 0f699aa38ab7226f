package io.ibemu.udev;

import io.ibemu.sysfstree.SysDir;

/**
 * A device directory's {@code uevent} attribute (drivers/base/core.c uevent_show/uevent_store):
 * reading shows the device's uevent variables; writing an action raises that event, as
 * kobject_synth_uevent does (udevadm trigger writes "change" or "add" here).
 */
public final class UeventFile {

    private UeventFile() {
    }

    public static void add(SysDir dir, Kobject device, Uevents events) {
        dir.attribute("uevent", device::ueventText, written -> {
            SyntheticUevent synth = SyntheticUevent.parse(written);
            events.raise(device, synth.action(), synth.variables());
        });
    }
}
