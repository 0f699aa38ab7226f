package io.ibemu.emulator.agent;

import io.ibemu.emulator.fabric.Port;

/**
 * A packet about to leave by port {@code out}: what a switch's relay decides, handed back to
 * {@link Wire#cross}'s loop so that one hop's code never calls (and C2 never inlines) the next.
 */
record Hop(Port out, Datagram datagram) {
}
