package io.ibemu.devfs.fuse;

import com.kenai.jffi.MemoryIO;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/** A direct, native-order buffer and its address, for read(2)/write(2) of /dev/fuse without copies. */
public final class IoBuffer {

    public final ByteBuffer bytes;
    final long address;

    private IoBuffer(int size) {
        bytes = ByteBuffer.allocateDirect(size).order(ByteOrder.nativeOrder());
        address = MemoryIO.getInstance().getDirectBufferAddress(bytes);
    }

    public static IoBuffer allocate(int size) {
        return new IoBuffer(size);
    }

    public int capacity() {
        return bytes.capacity();
    }
}
