package io.ibemu.devfs;

/**
 * A read(2) or write(2) larger than one FUSE request, already handed to the device whole, whose
 * further FUSE requests (same file, same thread, growing offsets) are answered from here.
 *
 * <p>The kernel sends the next request only after a full reply while the syscall's count is not
 * used up; any shorter reply ends the syscall.
 */
final class SplitSyscall {

    final int tid;
    final boolean write;
    /** read: what the device returned; write: null. */
    final byte[] data;
    /** The syscall's byte count. */
    private final int count;
    /** Bytes the device produced (read) or accepted (write), at most count. */
    private final int available;
    /** Bytes already given to the kernel in replies. */
    private int replied;
    /** The offset the next request of this syscall carries. */
    private long nextOffset;
    SplitSyscall next;

    private SplitSyscall(int tid, boolean write, byte[] data, int count, int available) {
        this.tid = tid;
        this.write = write;
        this.data = data;
        this.count = count;
        this.available = available;
    }

    /**
     * The syscall whose first request (of {@code size} bytes at {@code offset}) was answered with
     * {@code firstReply} bytes, if the kernel will send more requests for it; else null.
     */
    static SplitSyscall after(int tid, boolean write, byte[] data, int count, int available,
                              int firstReply, int size, long offset) {
        if (firstReply != size || firstReply >= count) {
            return null;
        }
        SplitSyscall split = new SplitSyscall(tid, write, data, count, available);
        split.replied = firstReply;
        split.nextOffset = offset + firstReply;
        return split;
    }

    /**
     * Whether a request is this syscall's next piece: at the next offset, and as large as the
     * kernel makes it (after the first piece the buffer is page-aligned, so min(rest, 128 KiB)).
     * A syscall the kernel gave up on between pieces (a fault in the buffer) does not match the
     * caller's next syscall by chance.
     */
    boolean follows(long offset, int size) {
        return offset == nextOffset && size == Math.min(count - replied, DeviceRequests.MAX_REQUEST);
    }

    /** Where the next reply's bytes start in {@link #data}. */
    int replied() {
        return replied;
    }

    /** Answers the next request of {@code size} bytes: how many bytes it gets. */
    int nextReply(int size) {
        int n = Math.max(0, Math.min(size, available - replied));
        replied += n;
        nextOffset += n;
        return n;
    }

    /** Whether the kernel sends another request after this reply. */
    boolean continuesAfter(int reply, int size) {
        return reply == size && replied < count;
    }
}
