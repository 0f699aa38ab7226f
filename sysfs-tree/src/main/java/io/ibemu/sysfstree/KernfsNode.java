package io.ibemu.sysfstree;

/** One entry of the tree: what a kernfs node is. Mode and owner change only by chmod/chown. */
abstract sealed class KernfsNode permits SysDir, Attribute, Link {

    static final int S_IFDIR = 0040000;
    static final int S_IFREG = 0100000;
    static final int S_IFLNK = 0120000;

    private final long inode;
    private final long createdEpochSecond = System.currentTimeMillis() / 1000;
    private volatile int permissions;
    private volatile long uid;
    private volatile long gid;
    private volatile boolean detached;

    KernfsNode(long inode, int permissions) {
        if ((permissions & ~07777) != 0) {
            throw new IllegalArgumentException("not a permission mode: 0" + Integer.toOctalString(permissions));
        }
        this.inode = inode;
        this.permissions = permissions;
    }

    /** S_IFDIR, S_IFREG or S_IFLNK. */
    abstract int fileType();

    abstract long size();

    abstract long linkCount();

    long inode() {
        return inode;
    }

    long createdEpochSecond() {
        return createdEpochSecond;
    }

    int permissions() {
        return permissions;
    }

    void permissions(int permissions) {
        this.permissions = permissions & 07777;
    }

    long uid() {
        return uid;
    }

    long gid() {
        return gid;
    }

    void owner(long uid, long gid) {
        this.uid = uid;
        this.gid = gid;
    }

    /** Removed from the tree: open files of it fail with ENODEV, as kernfs does after removal. */
    boolean detached() {
        return detached;
    }

    void detach() {
        detached = true;
    }
}
