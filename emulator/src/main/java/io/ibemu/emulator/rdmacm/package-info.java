/**
 * The RDMA connection manager as user space reaches it: {@code /dev/infiniband/rdma_cm}, the misc
 * device of {@code drivers/infiniband/core/ucma.c} (its write() command table, per-file contexts,
 * the event queue GET_EVENT blocks on), and the RDMA CM ids behind it ({@code cma.c}: port spaces,
 * address binding and resolution as {@code addr.c} does it over IPoIB). Imports {@code hca},
 * {@code device}, {@code fabric} and {@code ipoib} (addresses), devfs's device model
 * ({@code io.ibemu.devfs.device}) and {@code io.ibemu.kernel}; {@code cli} serves it and
 * {@code nldev} answers GET_CHARDEV for it.
 */
package io.ibemu.emulator.rdmacm;
