package io.ibemu.emulator.hca;

import io.ibemu.emulator.fabric.Port;

/**
 * What happens to one verbs packet as it leaves a port for a cable, as an outside rule decides (fault
 * injection): it passes, is lost, arrives with a bad ICRC, arrives twice, or arrives after the
 * packet behind it. Consulted by the transports under the model lock, once per packet, only while
 * {@link #armed}: it must not block.
 */
public interface PacketFault {
    PacketFault NONE = new PacketFault() {
        @Override
        public boolean armed() {
            return false;
        }

        @Override
        public Fate fate(Port out, QueuePair requester, int opcode, boolean response, int psn) {
            return Fate.PASS;
        }
    };

    /** A packet's fate on its way (IBA 9.7.5.1: the receiver sees it lost, duplicated, out of order or corrupt). */
    enum Fate { PASS, DROP, CORRUPT, DUP, REORDER }

    /** Whether any rule may act on packets: while false the transports move whole messages. */
    boolean armed();

    /**
     * The fate of the packet with {@code psn} leaving {@code out} (an HCA's or a switch's port on
     * its way): a request of {@code requester}'s work request of {@code opcode} ({@link WrOpcode}),
     * or the answer to one ({@code response}).
     */
    Fate fate(Port out, QueuePair requester, int opcode, boolean response, int psn);
}
