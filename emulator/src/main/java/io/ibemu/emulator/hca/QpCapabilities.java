package io.ibemu.emulator.hca;

/** ibv_qp_cap: queue depths, SGEs per WR and inline bytes, as asked at create or as granted. */
public record QpCapabilities(int maxSendWr, int maxRecvWr, int maxSendSge, int maxRecvSge, int maxInlineData) {
}
