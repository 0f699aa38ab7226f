package io.ibemu.emulator.uverbs.provider;

import io.ibemu.devfs.device.Caller;
import io.ibemu.kernel.Errno;
import io.ibemu.emulator.hca.AddressHandle;
import io.ibemu.emulator.hca.CompletionQueue;
import io.ibemu.emulator.hca.Hca;
import io.ibemu.emulator.hca.QpCapabilities;
import io.ibemu.emulator.hca.QueuePair;
import io.ibemu.emulator.hca.SharedReceiveQueue;

/**
 * The driver half of a verbs ABI (the kernel's {@code ib_device_ops} of one driver, as far as a
 * provider library sees it): what each create or resize adds after the core structs (udata) and
 * which queues it shares with the program. The core commands call it after the model has made
 * the object; it returns the driver's response bytes, which the command layer writes as
 * {@code ib_copy_to_udata} would. {@code memory} is null where the open file cannot be mapped.
 */
public interface Driver {

    /**
     * The CQ size the driver makes of a create's or resize's {@code cqe}, which the device's
     * {@code maxCqe} bounds (rdmavt: as asked).
     */
    default int cqEntries(int cqe, int maxCqe) {
        return cqe;
    }

    /** The max_wr QUERY_SRQ reports of an SRQ whose model size is {@code maxWr} (rdmavt: that). */
    default int srqQueried(int maxWr) {
        return maxWr;
    }

    /** The capabilities QUERY_QP reports of {@code qp}, granted {@code cap} (rdmavt: as granted). */
    default QpCapabilities qpQueried(QueuePair qp, QpCapabilities cap) {
        return cap;
    }

    /** create_cq's udata response ({@code udataOut}: the room the program gave for it). */
    byte[] cqCreated(Hca hca, CompletionQueue cq, QueueMemory memory, int udataOut) throws Errno;

    /** resize_cq's udata response, after the model took the new size. */
    byte[] cqResized(Hca hca, CompletionQueue cq, QueueMemory memory, int udataOut) throws Errno;

    /** create_qp's udata response. */
    byte[] qpCreated(Hca hca, QueuePair qp, QueueMemory memory, int udataOut) throws Errno;

    /** create_srq's udata response. */
    byte[] srqCreated(Hca hca, SharedReceiveQueue srq, QueueMemory memory, int udataOut) throws Errno;

    /** modify_srq's driver part, after the model took the change ({@code udataIn}: what followed the request). */
    void srqModified(Hca hca, SharedReceiveQueue srq, int mask, QueueMemory memory, byte[] udataIn, Caller caller)
            throws Errno;

    /** create_ah's udata response (rxe: the AH's number, which UD send WQEs name); none by default. */
    default byte[] ahCreated(Hca hca, AddressHandle ah, int udataOut) throws Errno {
        return new byte[0];
    }

    /** The AH is destroyed: a number the driver gave it names nothing any more. */
    default void ahDestroyed(AddressHandle ah) {
    }
}
