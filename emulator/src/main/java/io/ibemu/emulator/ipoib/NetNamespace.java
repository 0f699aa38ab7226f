package io.ibemu.emulator.ipoib;

import io.ibemu.kernel.Errno;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * A network namespace a caller of the daemon lives in, for what the kernel looks up in the
 * caller's namespace ({@code current->nsproxy->net_ns}: the RDMA CM's addresses, routes and
 * neighbours). The daemon's own runs calls in place; another gets one daemon thread that joined
 * it with setns(2), shared by its users and ended by the last {@link #release()}, so the daemon
 * never keeps a namespace alive after the programs in it are gone.
 */
public final class NetNamespace {
    /** NS_GET_USERNS = _IO(0xb7, 0x1). */
    private static final long NS_GET_USERNS = 0xb701L;
    /** PROC_USER_INIT_INO: the initial user namespace, the host's. */
    private static final String INITIAL_USER_NAMESPACE = "user:[4026531837]";

    /** A lookup made inside the namespace. */
    @FunctionalInterface
    public interface Lookup<T> {
        T call() throws Errno;
    }

    /** The daemon's own namespace: calls run on the caller's thread. */
    public static final NetNamespace OWN = new NetNamespace(ownName(), null);

    private static final Map<String, NetNamespace> JOINED = new HashMap<>();

    private final String name;
    private final ExecutorService thread;
    private int users;

    private NetNamespace(String name, ExecutorService thread) {
        this.name = name;
        this.thread = thread;
    }

    /**
     * The network namespace of thread {@code tid}, with one more user; the daemon's own when it
     * is the same, when the thread is gone, or when the daemon may not join it (said in the log).
     */
    public static NetNamespace of(int tid) {
        int fd = Libc.CALLS.open("/proc/" + tid + "/ns/net", Libc.O_RDONLY | Libc.O_CLOEXEC);
        if (fd < 0) {
            return OWN;
        }
        try {
            String theirs = nameOf(fd);
            if (theirs == null || theirs.equals(OWN.name)) {
                return OWN;
            }
            synchronized (JOINED) {
                NetNamespace ns = JOINED.get(theirs);
                if (ns == null) {
                    ns = join(fd, theirs);
                    if (ns == OWN) {
                        return OWN;
                    }
                    JOINED.put(theirs, ns);
                }
                ns.users++;
                return ns;
            }
        } finally {
            Libc.CALLS.close(fd);
        }
    }

    /** The name nsfs gives the namespace {@code fd} refers to ("net:[inode]"); null if none. */
    static String nameOf(int fd) {
        try {
            return Files.readSymbolicLink(Path.of("/proc/self/fd/" + fd)).toString();
        } catch (IOException e) {
            return null;
        }
    }

    private static String ownName() {
        try {
            return Files.readSymbolicLink(Path.of("/proc/self/ns/net")).toString();
        } catch (IOException e) {
            return "net:[own]";
        }
    }

    /** nsfs's name of the namespace ("net:[inode]"), the same for every opener of it. */
    public String name() {
        return name;
    }

    private static NetNamespace join(int fd, String name) {
        ExecutorService thread = Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "netns " + name);
            t.setDaemon(true);
            return t;
        });
        try {
            // setns affects the calling thread only (CLONE_NEWNET is allowed in a threaded process)
            Future<Integer> joined = thread.submit(() -> Libc.CALLS.setns(fd, Libc.CLONE_NEWNET) < 0 ? Libc.errno() : 0);
            int errno = joined.get();
            if (errno != 0) {
                System.err.println("ibemu: cannot join the network namespace " + name + " (setns errno " + errno
                        + "); the RDMA CM ids made there look addresses up in the daemon's");
                thread.shutdown();
                return OWN;
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            thread.shutdown();
            return OWN;
        } catch (ExecutionException e) {
            thread.shutdown();
            return OWN;
        }
        return new NetNamespace(name, thread);
    }

    /** Runs {@code lookup} inside this namespace: sockets it makes and programs it starts belong to it. */
    public <T> T call(Lookup<T> lookup) throws Errno {
        if (thread == null) {
            return lookup.call();
        }
        Future<T> f;
        try {
            f = thread.submit(lookup::call);
        } catch (java.util.concurrent.RejectedExecutionException e) {
            throw Errno.of(Errno.ENODEV); // released: its last user is gone
        }
        try {
            return f.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw Errno.of(Errno.EINTR);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof Errno errno) {
                throw errno;
            }
            if (e.getCause() instanceof RuntimeException r) {
                throw r;
            }
            throw new IllegalStateException(e.getCause());
        }
    }

    /** One user more (an RDMA CM id made in this namespace keeps it, wherever its file goes). */
    public void retain() {
        if (thread == null) {
            return;
        }
        synchronized (JOINED) {
            users++;
        }
    }

    /** One user less; the last one ends the thread, and with it the daemon's hold on the namespace. */
    public void release() {
        if (thread == null) {
            return;
        }
        synchronized (JOINED) {
            if (--users == 0) {
                JOINED.remove(name);
                thread.shutdown();
            }
        }
    }

    @Override
    public String toString() {
        return name;
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
