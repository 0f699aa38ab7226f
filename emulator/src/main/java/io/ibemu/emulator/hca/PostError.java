package io.ibemu.emulator.hca;

/**
 * A post_send/post_recv that stopped at work request {@code badIndex} (the ABI's bad_wr): the
 * ones before it were posted, it and those after it were not. {@code errno} as the driver's
 * post function returns it: EINVAL (QP state, opcode, SGE count, inline size), ENOMEM (queue full).
 */
public final class PostError extends Exception {
    /** The driver failed the whole post without naming a request (rvt_post_send's state check). */
    public static final int NONE_NAMED = -1;

    private final int errno;
    private final int badIndex;

    public PostError(int errno, int badIndex) {
        super("post failed with errno " + errno + " at work request " + badIndex, null, false, false);
        this.errno = errno;
        this.badIndex = badIndex;
    }

    public int errno() {
        return errno;
    }

    public int badIndex() {
        return badIndex;
    }
}
