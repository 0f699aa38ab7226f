/**
 * Netlink as the kernel's af_netlink serves it to one protocol, for the supervisor's emulated
 * sockets: message framing and acks ({@link io.ibemu.devfs.netlink.NetlinkInput}), dump packing
 * ({@link io.ibemu.devfs.netlink.MessageWriter}), attributes with their policy
 * ({@link io.ibemu.devfs.netlink.Attributes}, {@link io.ibemu.devfs.netlink.AttributePolicy}),
 * and the protocol side a family implements ({@link io.ibemu.devfs.netlink.NetlinkFamily}; the
 * emulator's nldev is one). No RDMA knowledge.
 */
package io.ibemu.devfs.netlink;
