package io.ibemu.emulator.cm;

import io.ibemu.emulator.hca.QpType;
import io.ibemu.emulator.mad.PathRecord;

/**
 * {@code struct ib_cm_req_param}: what {@link CmId#sendReq} puts in the REQ. The local port is
 * the one whose GID is the path's SGID (cm_init_av_by_path); {@code alternatePath} may be null.
 * Timeouts are IBA exponents (4.096 us * 2^t), {@code privateData} at most 92 bytes.
 */
public record CmRequestParam(PathRecord primaryPath, PathRecord alternatePath, long serviceId, int qpNum,
        QpType qpType, int startingPsn, byte[] privateData, int responderResources, int initiatorDepth,
        int remoteCmResponseTimeout, boolean flowControl, int localCmResponseTimeout, int retryCount,
        int rnrRetryCount, int maxCmRetries, boolean srq) {
    public CmRequestParam {
        privateData = privateData == null ? new byte[0] : privateData.clone();
    }

    @Override
    public byte[] privateData() {
        return privateData.clone();
    }
}
