package io.ibemu.emulator.ipoib;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Whose the daemon's network namespace is: ioctl(NS_GET_USERNS) on /proc/self/ns/net names the
 * user namespace that owns it (nsfs, Linux 4.9).
 */
final class NetNamespace {
    /** NS_GET_USERNS = _IO(0xb7, 0x1). */
    private static final long NS_GET_USERNS = 0xb701L;
    /** PROC_USER_INIT_INO: the initial user namespace, the host's. */
    private static final String INITIAL_USER_NAMESPACE = "user:[4026531837]";

    private NetNamespace() {
    }

    /**
     * True when this process's network namespace is owned by its own user namespace and that is
     * not the host's: such a namespace was made inside a user namespace the host's network never
     * belongs to (the rootless launcher's unshare -U -r -n).
     */
    static boolean ownedByOwnUserNamespace() throws IOException {
        Path mine = Files.readSymbolicLink(Path.of("/proc/self/ns/user"));
        if (mine.toString().equals(INITIAL_USER_NAMESPACE)) {
            return false;
        }
        int net = Libc.CALLS.open("/proc/self/ns/net", Libc.O_RDONLY | Libc.O_CLOEXEC);
        if (net < 0) {
            throw new IOException("open /proc/self/ns/net: errno " + Libc.errno());
        }
        try {
            int owner = Libc.CALLS.ioctl(net, NS_GET_USERNS, 0);
            if (owner < 0) {
                return false; // EPERM: the owner is an ancestor of our user namespace, not ours
            }
            try {
                return Files.readSymbolicLink(Path.of("/proc/self/fd/" + owner)).equals(mine);
            } finally {
                Libc.CALLS.close(owner);
            }
        } finally {
            Libc.CALLS.close(net);
        }
    }
}
