package io.ibemu.emulator.hca;

/**
 * An access to host memory that the process cannot serve (an unmapped page, a read-only page
 * written): the data path turns it into a completion error, never a daemon failure.
 */
public final class MemoryFault extends Exception {
    public MemoryFault(String message) {
        super(message, null, false, false);
    }
}
