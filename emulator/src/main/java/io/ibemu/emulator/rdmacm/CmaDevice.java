package io.ibemu.emulator.rdmacm;

import io.ibemu.emulator.device.LocalHca;

/**
 * What an id is bound to once it has a device ({@code cma_dev}, {@code port_num} and the
 * {@code rdma_dev_addr} of cma.c): the local HCA and port, the source GID and P_Key, and the
 * destination GID once an address resolved (null before).
 */
record CmaDevice(LocalHca hca, int port, byte[] sgid, int pkey, byte[] dgid) {

    CmaDevice withDgid(byte[] gid) {
        return new CmaDevice(hca, port, sgid, pkey, gid.clone());
    }
}
