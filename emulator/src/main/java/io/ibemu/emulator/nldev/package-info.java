/**
 * RDMA netlink's nldev family ({@code drivers/infiniband/core/nldev.c}) over the emulated HCAs:
 * the command table and attribute policy declared once ({@code NldevCommand}, {@code
 * NldevAttribute}), device and port queries, resource tracking of the uverbs objects and of
 * ib_mad's own, rename, and the char-device lookup libibverbs uses. It plugs into devfs's generic
 * netlink layer as a {@code NetlinkFamily}, and imports {@code uverbs}, {@code io.ibemu.kernel},
 * {@code hca}, {@code sysfs} (a rename moves the sysfs entries) and {@code device}; only {@code
 * cli} imports it.
 */
package io.ibemu.emulator.nldev;
