package io.ibemu.sysfs;

import jnr.ffi.LibraryLoader;

/**
 * The libc calls jnr-fuse does not offer: unmounting without the fusermount program. Public
 * only because the class jnr-ffi generates in its own loader must reach it.
 */
public interface LibC {

    int MNT_DETACH = 2;

    int umount2(String target, int flags);

    static LibC load() {
        return LibraryLoader.create(LibC.class).load("c");
    }
}
