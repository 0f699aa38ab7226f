/**
 * The kernel's SA client ({@code drivers/infiniband/core/sa_query.c}): PathRecord and
 * MCMemberRecord queries a kernel consumer (IPoIB, the RDMA CM) sends to the subnet
 * administrator on QP1. Imports {@code agent}, {@code fabric}, {@code mad} and {@code kernel}
 * ({@code Errno}); {@code ipoib} and {@code rdmacm} use it.
 */
package io.ibemu.emulator.sa;
