/**
 * The RDMA connection manager as user space reaches it: {@code /dev/infiniband/rdma_cm}, the misc
 * device of {@code drivers/infiniband/core/ucma.c} (its write() command table as data, per-file
 * contexts, the event queue GET_EVENT blocks on, multicast joins), and the RDMA CM ids behind it
 * ({@code cma.c}: port spaces, address binding and resolution over IPoIB as {@code addr.c} does
 * it, routes from the SA, connections and SIDR over the IB CM, multicast through the SA).
 * Imports {@code cm}, {@code sa}, {@code ipoib}, {@code hca}, {@code agent}, {@code mad},
 * {@code fabric}, {@code device}, devfs's device model ({@code io.ibemu.devfs.device}) and
 * {@code io.ibemu.kernel}; {@code cli} serves it and {@code nldev} answers GET_CHARDEV for it.
 */
package io.ibemu.emulator.rdmacm;
