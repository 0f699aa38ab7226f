package io.ibemu.udev;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One uevent as the kernel broadcasts it (lib/kobject_uevent.c, kobject_uevent_env): ACTION,
 * DEVPATH, SUBSYSTEM, the caller's extra variables (SYNTH_UUID, SYNTH_ARG_*), the device's own
 * uevent variables, then SEQNUM. {@link #environment} is what a rules engine gets as the
 * event's environment (udevd's properties before rules, a RUN program's env).
 */
public record Uevent(long seqnum, UeventAction action, String devpath, String subsystem, Map<String, String> variables) {

    public Uevent {
        variables = Collections.unmodifiableMap(new LinkedHashMap<>(variables));
    }

    /** Built in kobject_uevent_env's order from the device as it is now. */
    static Uevent of(long seqnum, UeventAction action, Kobject device, Map<String, String> extra) {
        Map<String, String> vars = new LinkedHashMap<>(extra);
        device.ueventVariables().get().forEach(vars::putIfAbsent);
        return new Uevent(seqnum, action, device.devpath(), device.subsystem(), vars);
    }

    /** Written to a uevent file rather than raised by a device change. */
    public boolean synthetic() {
        return variables.containsKey("SYNTH_UUID");
    }

    /** Every variable as KEY=VALUE, in the order the kernel puts them in the message. */
    public List<String> environment() {
        List<String> env = new ArrayList<>();
        env.add("ACTION=" + action.word());
        env.add("DEVPATH=" + devpath);
        env.add("SUBSYSTEM=" + subsystem);
        variables.forEach((k, v) -> env.add(k + "=" + v));
        env.add("SEQNUM=" + seqnum);
        return env;
    }

    /** One line for logs and `ctl events`: the environment joined by spaces. */
    public String line() {
        return String.join(" ", environment());
    }
}
