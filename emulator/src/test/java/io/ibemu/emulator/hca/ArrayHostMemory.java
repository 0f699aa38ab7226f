package io.ibemu.emulator.hca;

import java.nio.ByteBuffer;
import java.util.Map;
import java.util.TreeMap;

/** Process memory for tests: page-aligned segments over byte arrays that can be unmapped or made read-only. */
final class ArrayHostMemory implements HostMemory {
    private static final int PAGE = 4096;

    private record Segment(byte[] bytes, boolean writable) {
    }

    private final TreeMap<Long, Segment> segments = new TreeMap<>();
    private long next = 0x7f0000000000L;
    long pinnedLimit = -1;

    /** A new mapping of {@code size} bytes (rounded up to pages), with a guard gap after it. */
    synchronized long allocate(int size, boolean writable) {
        int rounded = Math.max(PAGE, (size + PAGE - 1) / PAGE * PAGE);
        long base = next;
        next += rounded + PAGE;
        segments.put(base, new Segment(new byte[rounded], writable));
        return base;
    }

    long allocate(int size) {
        return allocate(size, true);
    }

    synchronized void unmap(long base) {
        segments.remove(base);
    }

    synchronized byte[] get(long address, int length) {
        Map.Entry<Long, Segment> e = segments.floorEntry(address);
        byte[] out = new byte[length];
        System.arraycopy(e.getValue().bytes(), (int) (address - e.getKey()), out, 0, length);
        return out;
    }

    synchronized void put(long address, byte[] data) {
        Map.Entry<Long, Segment> e = segments.floorEntry(address);
        System.arraycopy(data, 0, e.getValue().bytes(), (int) (address - e.getKey()), data.length);
    }

    private Map.Entry<Long, Segment> segment(long address, long length) throws MemoryFault {
        Map.Entry<Long, Segment> e = segments.floorEntry(address);
        if (e == null || address + length > e.getKey() + e.getValue().bytes().length) {
            throw new MemoryFault(String.format("no mapping at 0x%x+%d", address, length));
        }
        return e;
    }

    @Override
    public synchronized void read(long address, ByteBuffer dst) throws MemoryFault {
        Map.Entry<Long, Segment> e = segment(address, dst.remaining());
        dst.put(e.getValue().bytes(), (int) (address - e.getKey()), dst.remaining());
    }

    @Override
    public synchronized void write(long address, ByteBuffer src) throws MemoryFault {
        Map.Entry<Long, Segment> e = segment(address, src.remaining());
        if (!e.getValue().writable()) {
            throw new MemoryFault("read-only");
        }
        src.get(e.getValue().bytes(), (int) (address - e.getKey()), src.remaining());
    }

    @Override
    public synchronized boolean isMapped(long start, long length, boolean writable) {
        Map.Entry<Long, Segment> e = segments.floorEntry(start);
        return e != null && start + length <= e.getKey() + e.getValue().bytes().length
                && (!writable || e.getValue().writable());
    }

    @Override
    public long pinnedLimit() {
        return pinnedLimit;
    }
}
