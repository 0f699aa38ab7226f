package io.ibemu.sysfstree;

import java.nio.charset.StandardCharsets;

/** A symbolic link; the target is kept as the text given, like sysfs's relative links. */
final class Link extends KernfsNode {

    private final byte[] target;

    Link(long inode, String target) {
        super(inode, 0777);
        if (target.isEmpty() || target.indexOf('\0') >= 0) {
            throw new IllegalArgumentException("bad link target: " + target);
        }
        this.target = target.getBytes(StandardCharsets.UTF_8);
    }

    byte[] target() {
        return target.clone();
    }

    @Override
    int fileType() {
        return S_IFLNK;
    }

    @Override
    long size() {
        return target.length;
    }

    @Override
    long linkCount() {
        return 1;
    }
}
