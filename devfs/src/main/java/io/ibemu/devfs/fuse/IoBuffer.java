package io.ibemu.devfs.fuse;

import com.kenai.jffi.MemoryIO;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * Native memory seen as a native-order buffer, with its address for read(2)/write(2) of
 * /dev/fuse without copies. Not zeroed: a worker's 132 KiB buffers cost resident memory only
 * as far as requests fill them. {@link #free()} once nothing uses it.
 */
public final class IoBuffer {

    private static final MemoryIO MEMORY = MemoryIO.getInstance();

    public final ByteBuffer bytes;
    final long address;
    /** False for a buffer the garbage collector frees. */
    private final boolean owned;

    private IoBuffer(ByteBuffer bytes, long address, boolean owned) {
        this.bytes = bytes.order(ByteOrder.nativeOrder());
        this.address = address;
        this.owned = owned;
    }

    /** Native memory freed by {@link #free()}. */
    public static IoBuffer allocate(int size) {
        long address = MEMORY.allocateMemory(size, false);
        if (address == 0) {
            throw new OutOfMemoryError("no native memory for a " + size + "-byte FUSE buffer");
        }
        return new IoBuffer(MEMORY.newDirectByteBuffer(address, size), address, true);
    }

    /** A small buffer the garbage collector frees (e.g. a thread's notification buffer). */
    public static IoBuffer collected(int size) {
        ByteBuffer bytes = ByteBuffer.allocateDirect(size);
        return new IoBuffer(bytes, MEMORY.getDirectBufferAddress(bytes), false);
    }

    public int capacity() {
        return bytes.capacity();
    }

    /** Frees the memory; the buffer must not be used again. */
    public void free() {
        if (owned) {
            MEMORY.freeMemory(address);
        }
    }
}
