package io.ibemu.emulator.cm;

import io.ibemu.emulator.agent.SendStatus;
import io.ibemu.emulator.hca.QpType;
import io.ibemu.emulator.mad.PathRecord;
import java.util.Optional;

/**
 * {@code struct ib_cm_event}: one record per {@code enum ib_cm_event_type}, carrying that type's
 * {@code ib_cm_*_event_param} and the MAD's private data at its full fixed length (REQ 92, MRA
 * 222, REJ 148, REP 196, RTU 224, DREQ 220, DREP 224, SIDR_REQ 216, SIDR_REP 136 bytes), as the
 * kernel hands it on. Byte arrays are copied in and out: the records stay immutable.
 */
public sealed interface CmEvent {

    /** The private data of the MAD that caused the event (empty for local events). */
    byte[] privateData();

    /** IB_CM_REQ_ERROR: the REQ went unanswered after max_cm_retries (or was flushed). */
    record ReqError(SendStatus sendStatus) implements CmEvent {
        @Override
        public byte[] privateData() {
            return new byte[0];
        }
    }

    /** IB_CM_REQ_RECEIVED with ib_cm_req_event_param; {@code port} the local port it came in on. */
    record ReqReceived(CmId listenId, int bthPkey, int port, PathRecord primaryPath, PathRecord alternatePath,
            long remoteCaGuid, int remoteQkey, int remoteQpn, QpType qpType, int startingPsn,
            int responderResources, int initiatorDepth, int localCmResponseTimeout, boolean flowControl,
            int remoteCmResponseTimeout, int retryCount, int rnrRetryCount, boolean srq, byte[] privateData)
            implements CmEvent {
        public ReqReceived {
            privateData = privateData.clone();
        }

        @Override
        public byte[] privateData() {
            return privateData.clone();
        }
    }

    /** IB_CM_REP_ERROR: the REP went unanswered (no RTU) after max_cm_retries. */
    record RepError(SendStatus sendStatus) implements CmEvent {
        @Override
        public byte[] privateData() {
            return new byte[0];
        }
    }

    /** IB_CM_REP_RECEIVED with ib_cm_rep_event_param. */
    record RepReceived(long remoteCaGuid, int remoteQkey, int remoteQpn, int startingPsn, int responderResources,
            int initiatorDepth, int targetAckDelay, int failoverAccepted, boolean flowControl, int rnrRetryCount,
            boolean srq, byte[] privateData) implements CmEvent {
        public RepReceived {
            privateData = privateData.clone();
        }

        @Override
        public byte[] privateData() {
            return privateData.clone();
        }
    }

    /** IB_CM_RTU_RECEIVED: the passive side is ESTABLISHED. */
    record RtuReceived(byte[] privateData) implements CmEvent {
        public RtuReceived {
            privateData = privateData.clone();
        }

        @Override
        public byte[] privateData() {
            return privateData.clone();
        }
    }

    /** IB_CM_USER_ESTABLISHED: ESTABLISHED by {@link CmId#establish()} (a first packet before the RTU). */
    record UserEstablished() implements CmEvent {
        @Override
        public byte[] privateData() {
            return new byte[0];
        }
    }

    /** IB_CM_DREQ_ERROR: no DREP after max_cm_retries; the id is in timewait. */
    record DreqError(SendStatus sendStatus) implements CmEvent {
        @Override
        public byte[] privateData() {
            return new byte[0];
        }
    }

    /** IB_CM_DREQ_RECEIVED: the consumer answers with {@link CmId#sendDrep}. */
    record DreqReceived(byte[] privateData) implements CmEvent {
        public DreqReceived {
            privateData = privateData.clone();
        }

        @Override
        public byte[] privateData() {
            return privateData.clone();
        }
    }

    /** IB_CM_DREP_RECEIVED: the id is in timewait. */
    record DrepReceived(byte[] privateData) implements CmEvent {
        public DrepReceived {
            privateData = privateData.clone();
        }

        @Override
        public byte[] privateData() {
            return privateData.clone();
        }
    }

    /** IB_CM_TIMEWAIT_EXIT: timewait is over; the id is IDLE again. */
    record TimewaitExit() implements CmEvent {
        @Override
        public byte[] privateData() {
            return new byte[0];
        }
    }

    /** IB_CM_MRA_RECEIVED: the peer needs {@code serviceTimeout} (4.096 us * 2^t) more. */
    record MraReceived(int serviceTimeout, byte[] privateData) implements CmEvent {
        public MraReceived {
            privateData = privateData.clone();
        }

        @Override
        public byte[] privateData() {
            return privateData.clone();
        }
    }

    /** IB_CM_REJ_RECEIVED with the Reason code (IBA table 112) and the ARI. */
    record RejReceived(int reason, byte[] ari, byte[] privateData) implements CmEvent {
        public RejReceived {
            ari = ari.clone();
            privateData = privateData.clone();
        }

        public Optional<CmRejectReason> knownReason() {
            return CmRejectReason.of(reason);
        }

        @Override
        public byte[] ari() {
            return ari.clone();
        }

        @Override
        public byte[] privateData() {
            return privateData.clone();
        }
    }

    /** IB_CM_SIDR_REQ_ERROR: the SIDR_REQ went unanswered. */
    record SidrReqError(SendStatus sendStatus) implements CmEvent {
        @Override
        public byte[] privateData() {
            return new byte[0];
        }
    }

    /** IB_CM_SIDR_REQ_RECEIVED with ib_cm_sidr_req_event_param; answered by {@link CmId#sendSidrRep}. */
    record SidrReqReceived(CmId listenId, int bthPkey, int port, int pkey, byte[] privateData) implements CmEvent {
        public SidrReqReceived {
            privateData = privateData.clone();
        }

        @Override
        public byte[] privateData() {
            return privateData.clone();
        }
    }

    /** IB_CM_SIDR_REP_RECEIVED: status, the responder's QPN and Q_Key, and its additional information. */
    record SidrRepReceived(int status, int qkey, int qpn, byte[] info, byte[] privateData) implements CmEvent {
        public SidrRepReceived {
            info = info.clone();
            privateData = privateData.clone();
        }

        public Optional<SidrStatus> knownStatus() {
            return SidrStatus.of(status);
        }

        @Override
        public byte[] info() {
            return info.clone();
        }

        @Override
        public byte[] privateData() {
            return privateData.clone();
        }
    }
}
