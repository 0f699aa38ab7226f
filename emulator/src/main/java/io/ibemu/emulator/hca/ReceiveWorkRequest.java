package io.ibemu.emulator.hca;

import java.util.List;

/** ibv_recv_wr: where an incoming SEND (or WRITE with immediate's completion) lands. */
public record ReceiveWorkRequest(long wrId, List<Sge> sgList) {
    public ReceiveWorkRequest {
        sgList = List.copyOf(sgList);
    }

    public long totalLength() {
        long n = 0;
        for (Sge s : sgList) {
            n += s.unsignedLength();
        }
        return n;
    }
}
