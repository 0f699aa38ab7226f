package io.ibemu.emulator.fabric;

/**
 * Whether a MAD is lost as it leaves a port, as an outside rule decides (fault injection), besides
 * the port's own drop rate. Consulted by the wire with the fabric lock held: it must not block.
 */
@FunctionalInterface
public interface MadFault {
    MadFault NONE = (out, mad) -> false;

    boolean drops(Port out, byte[] mad);
}
