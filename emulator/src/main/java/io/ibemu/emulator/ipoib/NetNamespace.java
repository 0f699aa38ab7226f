package io.ibemu.emulator.ipoib;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import jnr.ffi.LibraryLoader;
import jnr.ffi.Runtime;

/**
 * Whose the daemon's network namespace is: ioctl(NS_GET_USERNS) on /proc/self/ns/net names the
 * user namespace that owns it (nsfs, Linux 4.9).
 */
final class NetNamespace {
    /** NS_GET_USERNS = _IO(0xb7, 0x1). */
    private static final long NS_GET_USERNS = 0xb701L;
    private static final int O_RDONLY = 0;
    private static final int O_CLOEXEC = 0x80000;
    /** PROC_USER_INIT_INO: the initial user namespace, the host's. */
    private static final String INITIAL_USER_NAMESPACE = "user:[4026531837]";

    /** Public because jnr-ffi implements it from a class loader of its own. */
    public interface Calls {
        int open(String path, int flags);

        int ioctl(int fd, long request, long arg);

        int close(int fd);
    }

    private static final Calls CALLS = LibraryLoader.create(Calls.class).failImmediately().load("c");
    private static final Runtime RUNTIME = Runtime.getRuntime(CALLS);

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
        int net = CALLS.open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
        if (net < 0) {
            throw new IOException("open /proc/self/ns/net: errno " + RUNTIME.getLastError());
        }
        try {
            int owner = CALLS.ioctl(net, NS_GET_USERNS, 0);
            if (owner < 0) {
                return false; // EPERM: the owner is an ancestor of our user namespace, not ours
            }
            try {
                return Files.readSymbolicLink(Path.of("/proc/self/fd/" + owner)).equals(mine);
            } finally {
                CALLS.close(owner);
            }
        } finally {
            CALLS.close(net);
        }
    }
}
