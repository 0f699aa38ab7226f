package io.ibemu.emulator.ipoib;

import io.ibemu.emulator.hca.HostMemory;
import io.ibemu.emulator.hca.MemoryFault;
import java.nio.ByteBuffer;

/**
 * The buffers a kernel ULP DMA-maps for its QP (ipoib's rx ring and tx copies): one array in the
 * daemon, at addresses from {@link #BASE}. Not charged to any RLIMIT_MEMLOCK, as kernel memory is not.
 */
final class KernelMemory implements HostMemory {
    static final long BASE = 0x100000L;
    private final byte[] bytes;

    KernelMemory(int size) {
        this.bytes = new byte[size];
    }

    long address(int offset) {
        return BASE + offset;
    }

    int size() {
        return bytes.length;
    }

    byte[] bytes() {
        return bytes;
    }

    private int offset(long address, int length) throws MemoryFault {
        long o = address - BASE;
        if (o < 0 || o + length > bytes.length) {
            throw new MemoryFault(String.format("no mapping at 0x%x+%d", address, length));
        }
        return (int) o;
    }

    @Override
    public void read(long address, ByteBuffer dst) throws MemoryFault {
        dst.put(bytes, offset(address, dst.remaining()), dst.remaining());
    }

    @Override
    public void write(long address, ByteBuffer src) throws MemoryFault {
        src.get(bytes, offset(address, src.remaining()), src.remaining());
    }

    @Override
    public boolean isMapped(long start, long length, boolean writable) {
        return start >= BASE && start - BASE + length <= bytes.length;
    }

    @Override
    public long pinnedLimit() {
        return -1;
    }
}
