package io.ibemu.emulator.hca;

/**
 * The GRH part of an address vector (ibv_global_route): destination GID (16 bytes, network
 * order), flow label, index of the source GID in the port's table, hop limit and traffic class.
 */
public record GlobalRoute(byte[] dgid, int flowLabel, int sgidIndex, int hopLimit, int trafficClass) {
    public GlobalRoute {
        if (dgid.length != 16) {
            throw new IllegalArgumentException("a GID is 16 bytes, not " + dgid.length);
        }
        dgid = dgid.clone();
    }

    @Override
    public byte[] dgid() {
        return dgid.clone();
    }
}
