package io.ibemu.devfs.netlink;

import java.util.List;

/**
 * The kernel side of one netlink protocol (what netlink_kernel_create's input function serves):
 * one request message in, an {@link Outcome} out. The socket layer ({@link NetlinkInput}) does the
 * framing, acks and dump packing.
 */
public interface NetlinkFamily {

    /** Who sent a request: the sending socket's port id, its process and whether it holds CAP_NET_ADMIN. */
    record Sender(int portId, int pid, boolean netAdmin) {
    }

    /** What a request leads to. */
    sealed interface Outcome permits Reply, Dump, Failure {
    }

    /** A doit's answer: the messages it unicast (maybe none); an ack follows only if asked. */
    record Reply(List<byte[]> messages) implements Outcome {
    }

    /** A dump: its messages, then NLMSG_DONE carrying {@code doneErrno} (0 or a negative errno). */
    record Dump(List<byte[]> messages, int doneErrno) implements Outcome {
    }

    /** An error ack: errno (positive), the extack message (or null) and the offending attribute's offset (or -1). */
    record Failure(int errno, String message, int attributeOffset) implements Outcome {
        public static Failure of(int errno) {
            return new Failure(errno, null, -1);
        }
    }

    Outcome handle(NetlinkMessage request, Sender sender);
}
