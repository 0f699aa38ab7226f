package io.ibemu.sysfstree;

/**
 * What the kernel may hold of a mounted tree and must drop when the tree changes: entries
 * (dentries) and inode attributes. Unmounted, nothing is cached.
 */
interface KernelCache {

    KernelCache NONE = new KernelCache() {
        @Override
        public void entryChanged(SysDir parent, String name) {
        }

        @Override
        public void attributesChanged(KernfsNode node) {
        }
    };

    /** {@code name} in {@code parent} was added, replaced or removed. */
    void entryChanged(SysDir parent, String name);

    /** What stat shows of {@code node} changed (a directory's link count). */
    void attributesChanged(KernfsNode node);
}
