package io.ibemu.emulator.fault;

/** A rule that cannot be read: one line saying what is wrong and what to write instead. */
public final class FaultSyntaxException extends Exception {
    public FaultSyntaxException(String message) {
        super(message);
    }
}
