package io.ibemu.emulator.capture;

/** One captured packet: when it crossed (ns since the epoch), which way, and its wire octets. */
public record Frame(long epochNanos, boolean outbound, byte[] octets) {
}
