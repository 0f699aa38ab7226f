package io.ibemu.devfs.device;

/**
 * A character device shown as a real device node ({@code mknod}) with its major:minor and mode,
 * owned by root, and served to programs under the launcher's supervisor (seccomp user
 * notification): their open of it reaches {@link #device()}. With {@code supervisedIo}, so do
 * fstat and write of the descriptor (it lands in the supervisor's reserved range); without,
 * the caller gets a plain FUSE file at its lowest free descriptor and everything after the
 * open goes through FUSE, as before the node existed.
 */
public record DeviceNode(String name, int major, int minor, int mode, CharDevice device, boolean supervisedIo) {

    public DeviceNode(String name, int major, int minor, int mode, CharDevice device) {
        this(name, major, minor, mode, device, true);
    }

    /** The node's {@code st_rdev} as glibc's {@code makedev} encodes it. */
    public long rdev() {
        return rdev(major, minor);
    }

    /** glibc's {@code makedev(major, minor)}. */
    public static long rdev(int major, int minor) {
        return ((major & 0xfffL) << 8) | ((major & ~0xfffL) << 32) | (minor & 0xffL) | ((minor & ~0xffL) << 12);
    }

    /** The permission bits of {@code mode} as {@code ls} writes them ("rw-------"). */
    public static String permissionString(int mode) {
        String letters = "rwxrwxrwx";
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < 9; i++) {
            b.append((mode & (0400 >> i)) != 0 ? letters.charAt(i) : '-');
        }
        return b.toString();
    }

    /** The kernel's permission check of an open (generic_permission on the node's mode, owner root:root). */
    public boolean permits(Credentials caller, int accessMode) {
        return permits(caller, accessMode, mode, 0, 0);
    }

    /**
     * generic_permission against the node as it is now ({@code mode}, {@code uid}, {@code gid} from
     * a stat of it), so a chmod or chown of the node (udev's MODE/OWNER/GROUP) takes effect.
     */
    public static boolean permits(Credentials caller, int accessMode, int mode, int uid, int gid) {
        if (caller.fsuid() == 0) {
            return true; // CAP_DAC_OVERRIDE
        }
        int wanted = switch (accessMode & 3) {
            case 0 -> 4;
            case 1 -> 2;
            default -> 6;
        };
        int bits;
        if (caller.fsuid() == uid) {
            bits = (mode >> 6) & 7;
        } else if (caller.inGroup(gid)) {
            bits = (mode >> 3) & 7;
        } else {
            bits = mode & 7;
        }
        return (bits & wanted) == wanted;
    }

    /** Who asks, as the kernel checks it: fsuid, fsgid and the supplementary groups. */
    public record Credentials(int fsuid, int fsgid, int[] groups) {
        public boolean inGroup(int gid) {
            if (fsgid == gid) {
                return true;
            }
            for (int g : groups) {
                if (g == gid) {
                    return true;
                }
            }
            return false;
        }
    }
}
