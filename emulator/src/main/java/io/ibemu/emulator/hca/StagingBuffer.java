package io.ibemu.emulator.hca;

import java.nio.ByteBuffer;

/**
 * A direct buffer reused from message to message for the bytes one delivery moves between two
 * processes (process_vm_readv/writev fill and drain it with no copy of ours). Its owner uses it
 * only under the model lock, and only until that delivery ends; larger messages get a buffer
 * of their own, so a single 1 GiB transfer does not stay resident.
 */
final class StagingBuffer {
    static final int KEPT = 16 << 20;
    private static final int MIN = 4096;

    private ByteBuffer kept;

    /** {@code length} bytes at position 0: the kept buffer (grown as needed), or a new one past {@link #KEPT}. */
    ByteBuffer get(int length) {
        if (length > KEPT) {
            return ByteBuffer.allocateDirect(length);
        }
        if (kept == null || kept.capacity() < length) {
            kept = ByteBuffer.allocateDirect(Math.max(length, MIN));
        }
        return kept.clear().limit(length);
    }
}
