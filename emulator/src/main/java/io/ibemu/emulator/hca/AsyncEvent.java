package io.ibemu.emulator.hca;

/**
 * An asynchronous event (ib_uverbs_async_event_desc): its {@link Type} and the element it is
 * about — a {@link QueuePair}, {@link CompletionQueue}, {@link SharedReceiveQueue}, or an {@code
 * Integer} port number for port events. The ABI layer turns the element into the user handle
 * of the file that owns it (port events go to every open context of the device).
 */
public record AsyncEvent(Type type, Object element) {

    /** {@code enum ib_event_type} / ibv_event_type, with its number. */
    public enum Type {
        CQ_ERR(0), QP_FATAL(1), QP_REQ_ERR(2), QP_ACCESS_ERR(3), COMM_EST(4), SQ_DRAINED(5), PATH_MIG(6),
        PATH_MIG_ERR(7), DEVICE_FATAL(8), PORT_ACTIVE(9), PORT_ERR(10), LID_CHANGE(11), PKEY_CHANGE(12),
        SM_CHANGE(13), SRQ_ERR(14), SRQ_LIMIT_REACHED(15), QP_LAST_WQE_REACHED(16), CLIENT_REREGISTER(17),
        GID_CHANGE(18);

        private final int code;

        Type(int code) {
            this.code = code;
        }

        public int code() {
            return code;
        }
    }
}
