package io.ibemu.emulator.cm;

import io.ibemu.emulator.mad.PathRecord;

/** {@code struct ib_cm_sidr_req_param}: private data at most 216 bytes, the timeout in milliseconds. */
public record SidrRequestParam(PathRecord path, long serviceId, int timeoutMs, byte[] privateData,
        int maxCmRetries) {
    public SidrRequestParam {
        privateData = privateData == null ? new byte[0] : privateData.clone();
    }

    @Override
    public byte[] privateData() {
        return privateData.clone();
    }
}
