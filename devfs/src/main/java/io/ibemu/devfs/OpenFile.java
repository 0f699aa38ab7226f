package io.ibemu.devfs;

import io.ibemu.devfs.device.DeviceFile;
import io.ibemu.devfs.device.PollWaiter;

import java.util.concurrent.atomic.AtomicBoolean;

/**
 * One open FUSE file: the device's {@link DeviceFile}, the kernel's poll handle for it, and the
 * large reads and writes still being answered in pieces.
 *
 * <p>The kernel identifies a polled file by a handle fixed per open file ({@code kh}), so one
 * poll handle serves every wake-up: the first is kept until release, later duplicates are
 * dropped at once ({@link PollNotice#destroy}), and the file is its own {@link PollWaiter}.
 */
final class OpenFile implements PollWaiter {

    final DeviceFile device;
    /** The directory entry it was opened by, as /proc shows its descriptors' links end. */
    final String name;
    private final PollNotice notice;
    private final AtomicBoolean released = new AtomicBoolean();

    private long pollHandle; // guarded by this
    private boolean retired; // guarded by this: no more notifications (release or unmount)
    private volatile SplitSyscall splits;

    OpenFile(DeviceFile device, String name, PollNotice notice) {
        this.device = device;
        this.name = name;
        this.notice = notice;
    }

    /** Takes the poll handle of a POLL with FUSE_POLL_SCHEDULE_NOTIFY (the kernel's kh). */
    synchronized PollWaiter arm(long handle) {
        if (retired || notice.closing()) {
            notice.destroy(handle);
            return null;
        }
        if (pollHandle == 0) {
            pollHandle = handle;
        } else if (pollHandle != handle) {
            notice.destroy(handle);
        }
        return this;
    }

    @Override
    public synchronized void wake() {
        if (pollHandle != 0 && !retired) {
            notice.notify(pollHandle);
        }
    }

    /** After this the channel may close: never write to it again. */
    synchronized void retirePoll() {
        retired = true;
        if (pollHandle != 0) {
            notice.destroy(pollHandle);
            pollHandle = 0;
        }
    }

    /** Removes and returns the split syscall of {@code tid} in that direction, if any. */
    SplitSyscall takeSplit(int tid, boolean write) {
        if (splits == null) {
            return null;
        }
        synchronized (this) {
            SplitSyscall previous = null;
            for (SplitSyscall s = splits; s != null; previous = s, s = s.next) {
                if (s.tid == tid && s.write == write) {
                    if (previous == null) {
                        splits = s.next;
                    } else {
                        previous.next = s.next;
                    }
                    s.next = null;
                    return s;
                }
            }
            return null;
        }
    }

    synchronized void putSplit(SplitSyscall split) {
        split.next = splits;
        splits = split;
    }

    /** The last close (or FUSE's RELEASE after it): the device forgets the file, once. */
    void release() {
        retirePoll();
        splits = null;
        if (!released.getAndSet(true)) {
            device.release();
        }
    }
}
