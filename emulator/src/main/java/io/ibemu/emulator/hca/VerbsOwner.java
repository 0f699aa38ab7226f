package io.ibemu.emulator.hca;

/**
 * The process a verbs object belongs to: what {@code rdma res} shows (pid, comm) and whose
 * RLIMIT_MEMLOCK registered memory is charged to (ib_umem_get charges the mm of the caller).
 */
public record VerbsOwner(int pid, String comm) {
}
