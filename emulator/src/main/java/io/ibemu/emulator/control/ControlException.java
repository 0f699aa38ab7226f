package io.ibemu.emulator.control;

/** A request that cannot be carried out; the message says what to change and becomes "error: ...". */
public final class ControlException extends Exception {
    public ControlException(String message) {
        super(message);
    }
}
