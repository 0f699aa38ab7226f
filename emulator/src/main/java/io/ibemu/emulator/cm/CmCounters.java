package io.ibemu.emulator.cm;

import io.ibemu.emulator.mad.CmAttribute;
import java.util.List;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * One port's CM counters, cm.c's counter_group: per message type (REQ ... APR), the messages
 * sent (each retry included), the retries, the messages received and the duplicates among them.
 * Shown as {@code ports/N/cm_tx_msgs/req} and so on. Counted without a lock: the MAD layer's
 * send callback runs under the fabric lock.
 */
public final class CmCounters {
    /** The counter groups with their sysfs directory names (counter_group_names). */
    public enum Group {
        TX_MSGS("cm_tx_msgs"), TX_RETRIES("cm_tx_retries"), RX_MSGS("cm_rx_msgs"), RX_DUPLICATES("cm_rx_duplicates");

        private final String sysfsName;

        Group(String sysfsName) {
            this.sysfsName = sysfsName;
        }

        public String sysfsName() {
            return sysfsName;
        }
    }

    /** The files of each group, in attribute id order from REQ (0x0010) to APR (0x001A). */
    public static final List<String> MESSAGES = List.of("req", "mra", "rej", "rep", "rtu", "dreq", "drep", "sidr_req",
            "sidr_rep", "lap", "apr");

    private final AtomicLongArray counts = new AtomicLongArray(Group.values().length * MESSAGES.size());

    public long get(Group group, String message) {
        int m = MESSAGES.indexOf(message);
        if (m < 0) {
            throw new IllegalArgumentException("no CM counter " + message);
        }
        return counts.get(group.ordinal() * MESSAGES.size() + m);
    }

    /** Adds {@code n} to {@code group}'s counter of the message {@code attributeId}; other ids are not counted. */
    void add(Group group, int attributeId, long n) {
        int m = attributeId - CmAttribute.REQ;
        if (m >= 0 && m < MESSAGES.size()) {
            counts.addAndGet(group.ordinal() * MESSAGES.size() + m, n);
        }
    }
}
