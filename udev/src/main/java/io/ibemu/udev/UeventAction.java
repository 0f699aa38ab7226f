package io.ibemu.udev;

import java.util.Locale;
import java.util.Optional;

/** The kernel's kobject actions (include/linux/kobject.h), named as uevents spell them. */
public enum UeventAction {
    ADD, REMOVE, CHANGE, MOVE, ONLINE, OFFLINE, BIND, UNBIND;

    /** The word in ACTION= and in what is written to a uevent file. */
    public String word() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** As kobject_action_type: the exact word, nothing more or less. */
    public static Optional<UeventAction> of(String word) {
        for (UeventAction a : values()) {
            if (a.word().equals(word)) {
                return Optional.of(a);
            }
        }
        return Optional.empty();
    }
}
