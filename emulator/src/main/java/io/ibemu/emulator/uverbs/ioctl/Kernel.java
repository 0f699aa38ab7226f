package io.ibemu.emulator.uverbs.ioctl;

/**
 * The kernel releases whose ioctl trees a device can present: each entry of the tree says since
 * which of them it exists ({@link AttrSpec#since}, {@link MethodSpec#since},
 * {@link ObjectSpec#since}). Ordered oldest first; an entry that came in a release between two
 * of these is marked with the later one, and its comment names the release.
 */
public enum Kernel {
    /**
     * 4.19 (Debian 10's, an LTS): RDMA_VERBS_IOCTL exists but serves a software HCA nothing: the
     * device object has no method (INVOKE_WRITE is 5.0's), CQ_CREATE/DESTROY are compiled only
     * with CONFIG_INFINIBAND_EXP_LEGACY_VERBS_NEW_UAPI (off in distribution kernels), and the
     * new verbs (DM, FLOW_ACTION, COUNTERS, DM_MR_REG) need ops rdmavt lacks: 4.19 still has
     * them (UAPI_DEF_OBJ_NEEDS_FN is 5.0's) and its handlers answer EOPNOTSUPP after the
     * attributes are checked; here they are absent, EPROTONOSUPPORT. libibverbs's
     * INVOKE_WRITE probe gets EPROTONOSUPPORT, not ENOTTY: write() for every command, each ioctl
     * verb tried once and dropped per method.
     */
    V4_19("4.19"),
    /**
     * 5.4 (Ubuntu 20.04's): INVOKE_WRITE, so libibverbs tunnels every command through ioctl,
     * but GET_CONTEXT and the async event file are write commands (ASYNC_EVENT is 5.7's), CQs
     * are made by the tunnelled write command (CQ_CREATE by default is 5.9's), and the GID table
     * comes from sysfs (the GID queries are 5.10's).
     */
    V5_4("5.4"),
    /** 6.1: Debian bookworm's kernel, the one KernelConformanceTest runs in the VM. */
    V6_1("6.1");

    private final String release;

    Kernel(String release) {
        this.release = release;
    }

    public String release() {
        return release;
    }

    public boolean atLeast(Kernel other) {
        return compareTo(other) >= 0;
    }

    /** The newest release ibemu presents. */
    public static Kernel newest() {
        return values()[values().length - 1];
    }

    public static Kernel oldest() {
        return values()[0];
    }
}
