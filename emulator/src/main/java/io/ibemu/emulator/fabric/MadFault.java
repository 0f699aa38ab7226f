package io.ibemu.emulator.fabric;

/**
 * What becomes of a MAD as it leaves a port, as an outside rule decides (fault injection), besides
 * the port's own drop rate: it passes, is lost (arrives corrupt), arrives twice, or arrives late.
 * Consulted by the wire with the fabric lock held: it must not block.
 */
@FunctionalInterface
public interface MadFault {
    MadFault NONE = (out, mad) -> Fate.PASS;

    /** A MAD's fate on one cable; {@code delayNanos} for {@link Kind#DELAY}. */
    record Fate(Kind kind, long delayNanos) {
        public static final Fate PASS = new Fate(Kind.PASS, 0);
        public static final Fate LOST = new Fate(Kind.LOST, 0);
        public static final Fate DUP = new Fate(Kind.DUP, 0);

        public static Fate delay(long nanos) {
            return new Fate(Kind.DELAY, nanos);
        }
    }

    enum Kind { PASS, LOST, DUP, DELAY }

    Fate fate(Port out, byte[] mad);
}
