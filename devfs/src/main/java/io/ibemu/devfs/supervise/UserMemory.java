package io.ibemu.devfs.supervise;

import io.ibemu.kernel.Errno;
import io.ibemu.kernel.ProcessMemory;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;

/**
 * A stopped call's arguments that live in the caller's memory, read as the kernel reads them
 * (strncpy_from_user, get_user, import_iovec): what every kind of supervised call needs first.
 */
final class UserMemory {

    private static final int MAX_WRITE = 64 << 20;
    private static final int IOV_MAX = 1024;
    private static final int PAGE = 4096;

    private UserMemory() {
    }

    /**
     * The NUL-terminated string at {@code address} if it has at most {@code longest} bytes, else
     * null (not a path of ours); read a page at a time so an unmapped next page is no fault.
     */
    static String readPath(int tid, long address, int longest) {
        if (address == 0 || longest == 0) {
            return null;
        }
        byte[] bytes = new byte[longest + 1];
        int have = 0;
        while (have < bytes.length) {
            long at = address + have;
            int chunk = (int) Math.min(bytes.length - have, PAGE - (at & (PAGE - 1)));
            byte[] piece;
            try {
                piece = ProcessMemory.read(tid, at, chunk);
            } catch (Errno e) {
                return null;
            }
            for (int i = 0; i < chunk; i++) {
                if (piece[i] == 0) {
                    System.arraycopy(piece, 0, bytes, have, i);
                    return new String(bytes, 0, have + i, StandardCharsets.UTF_8);
                }
            }
            System.arraycopy(piece, 0, bytes, have, chunk);
            have += chunk;
        }
        return null;
    }

    /** The u64 at {@code address}; Long.MIN_VALUE when unreadable. */
    static long readLong(int tid, long address) {
        try {
            return ByteBuffer.wrap(ProcessMemory.read(tid, address, 8)).order(ByteOrder.LITTLE_ENDIAN).getLong();
        } catch (Errno e) {
            return Long.MIN_VALUE;
        }
    }

    /** The byte at {@code address}; -1 when unreadable. */
    static int readByte(int tid, long address) {
        try {
            return ProcessMemory.read(tid, address, 1)[0];
        } catch (Errno e) {
            return -1; // let the kernel fault it
        }
    }

    /** A write's source buffer: EINVAL past the largest write served, EFAULT when unreadable. */
    static byte[] writeBuffer(int tid, long address, long length) throws Errno {
        if (length < 0 || length > MAX_WRITE) {
            throw Errno.of(Errno.EINVAL);
        }
        try {
            return ProcessMemory.read(tid, address, (int) length);
        } catch (Errno e) {
            throw Errno.of(Errno.EFAULT);
        }
    }

    /** writev's iovecs joined into one buffer, as the kernel's write_iter sees them. */
    static byte[] gather(int tid, long iov, long iovCount) throws Errno {
        long[] segments = iovecs(tid, iov, iovCount);
        long total = 0;
        for (int i = 1; i < segments.length; i += 2) {
            total += segments[i];
        }
        if (total > MAX_WRITE) {
            throw Errno.of(Errno.EINVAL);
        }
        ByteBuffer joined = ByteBuffer.allocate((int) total);
        for (int i = 0; i < segments.length; i += 2) {
            joined.put(writeBuffer(tid, segments[i], segments[i + 1]));
        }
        return joined.array();
    }

    /**
     * The iovec array at {@code iov} as {base, length, base, length, ...}: EINVAL for a bad count or
     * a negative or overflowing length (import_iovec), EFAULT when the array is unreadable.
     */
    static long[] iovecs(int tid, long iov, long iovCount) throws Errno {
        if (iovCount < 0 || iovCount > IOV_MAX) {
            throw Errno.of(Errno.EINVAL);
        }
        ByteBuffer vectors = ByteBuffer.wrap(writeBuffer(tid, iov, iovCount * 16)).order(ByteOrder.LITTLE_ENDIAN);
        long[] segments = new long[(int) iovCount * 2];
        long total = 0;
        for (int i = 0; i < segments.length; i++) {
            segments[i] = vectors.getLong();
            if (i % 2 == 1) {
                total += segments[i];
                if (segments[i] < 0 || total < 0) {
                    throw Errno.of(Errno.EINVAL);
                }
            }
        }
        return segments;
    }
}
