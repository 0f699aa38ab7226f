package io.ibemu.sysfstree;

import java.util.concurrent.atomic.AtomicLong;

/** What every node of one tree shares: the inode numbers and the kernel cache of its mount. */
final class TreeContext {

    private final AtomicLong inodes = new AtomicLong();
    private volatile KernelCache cache = KernelCache.NONE;

    /** 1 for the root (FUSE_ROOT_ID), then counting up; never reused. */
    long nextInode() {
        return inodes.incrementAndGet();
    }

    KernelCache cache() {
        return cache;
    }

    void cache(KernelCache cache) {
        this.cache = cache;
    }
}
