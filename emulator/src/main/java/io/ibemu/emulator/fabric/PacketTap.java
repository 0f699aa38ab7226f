package io.ibemu.emulator.fabric;

/**
 * Hears every packet that crosses a port's cable, in either direction (a capture, as ibdump
 * sees a port). Called with the fabric lock held on the sending thread: it must copy what it
 * keeps and never block.
 */
@FunctionalInterface
public interface PacketTap {
    /** {@code port} sent ({@code outbound}) or received {@code packet}. */
    void crossed(Port port, boolean outbound, LinkPacket packet);
}
