package io.ibemu.devfs.fuse;

import jnr.ffi.Pointer;
import ru.serce.jnrfuse.struct.FuseFileInfo;

/**
 * The bit fields of libfuse2's {@code struct fuse_file_info} that jnr-fuse 0.5.8 maps wrongly.
 * In C: {@code int flags; unsigned long fh_old; int writepage; unsigned direct_io:1,
 * keep_cache:1, flush:1, nonseekable:1, ...}: the bits live in the 32-bit word at offset 20
 * (x86_64), which jnr-fuse's {@code direct_io} field does not point at.
 */
public final class OpenFlags {

    private static final long BITS_OFFSET = 20;
    private static final int DIRECT_IO = 1;
    private static final int NONSEEKABLE = 1 << 3;

    private OpenFlags() {
    }

    /** Every read and write reaches the daemon, bypassing the page cache and the file size. */
    public static void directIo(FuseFileInfo fi) {
        set(fi, DIRECT_IO);
    }

    /** As a character device: direct I/O and no seeking. */
    public static void characterDevice(FuseFileInfo fi) {
        set(fi, DIRECT_IO | NONSEEKABLE);
    }

    /** As {@link #characterDevice(FuseFileInfo)}, on the raw {@code struct fuse_file_info}. */
    public static void characterDevice(Pointer fileInfo) {
        set(fileInfo, DIRECT_IO | NONSEEKABLE);
    }

    private static void set(FuseFileInfo fi, int bits) {
        set(jnr.ffi.Struct.getMemory(fi), bits);
    }

    private static void set(Pointer p, int bits) {
        p.putInt(BITS_OFFSET, p.getInt(BITS_OFFSET) | bits);
    }
}
