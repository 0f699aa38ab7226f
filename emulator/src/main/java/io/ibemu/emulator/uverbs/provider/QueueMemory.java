package io.ibemu.emulator.uverbs.provider;

import io.ibemu.kernel.Errno;
import io.ibemu.devfs.device.SharedMemory;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;

/**
 * The queue memory of one open uverbs file and the mmaps still owed on it, as rdmavt's
 * {@code rvt_mmap_info} list and rxe's {@code pending_mmaps} keep them: each queue a driver
 * creates gets the next offset (from one page on, each a multiple of SHMLBA) and waits, pending,
 * for one mmap at exactly that offset of at most its size ({@code rvt_mmap}, {@code rxe_mmap}).
 * Offsets count per open file here, not per device: each file's memory is its own.
 */
public final class QueueMemory {

    /** PAGE_SIZE, and SHMLBA on x86_64: where offsets start and how they align. */
    public static final int PAGE = 4096;

    private final SharedMemory memory;
    private final List<Region> pending = new ArrayList<>(); // guarded by this
    private long next = PAGE; // guarded by this

    /** One queue's memory: where the program maps it and the daemon's view of it. */
    public record Region(long offset, int size, ByteBuffer buffer) {
    }

    public QueueMemory(SharedMemory memory) {
        this.memory = memory;
    }

    /**
     * rvt_create_mmap_info / rxe_create_mmap_info and the pending-list insertion: a region of
     * {@code size} bytes at the next offset (never used before: zero), owed one mmap. ENOMEM
     * when the file's memory is spent.
     */
    public synchronized Region allocate(int size) throws Errno {
        long aligned = (size + (long) PAGE - 1) & -PAGE;
        if (size <= 0 || next + aligned > memory.size()) {
            throw Errno.of(Errno.ENOMEM);
        }
        Region r = new Region(next, size, memory.region(next, size));
        next += aligned;
        pending.add(r);
        return r;
    }

    /**
     * The driver's mmap: the first pending region at {@code offset} is taken, unless the mapping
     * is larger than it. An offset nothing waits at, or too large a size: EINVAL.
     */
    public synchronized void mmap(long offset, long length) throws Errno {
        for (Iterator<Region> it = pending.iterator(); it.hasNext(); ) {
            Region r = it.next();
            if (r.offset() != offset) {
                continue;
            }
            if (length > ((r.size() + (long) PAGE - 1) & -PAGE)) {
                throw Errno.of(Errno.EINVAL);
            }
            it.remove();
            return;
        }
        throw Errno.of(Errno.EINVAL);
    }

    /** A queue destroyed before its mmap came: nothing waits at its offset any more. */
    public synchronized void forget(Region r) {
        pending.remove(r);
    }
}
