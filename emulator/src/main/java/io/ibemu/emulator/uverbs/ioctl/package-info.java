/**
 * The ioctl verbs ABI ({@code RDMA_VERBS_IOCTL}) as {@code uverbs_ioctl.c} serves it: objects,
 * methods and attributes declared once as data ({@code ObjectSpec}, {@code MethodSpec},
 * {@code AttrSpec}, merged in {@code Uapi} as {@code uverbs_uapi.c} merges the write and ioctl
 * entries), the header and attribute array read from the caller ({@code IoctlHeader},
 * {@code UserAttr}), their checks, and the bundle a handler reads and writes. Knows no
 * InfiniBand object: {@code uverbs} declares the tree and its handlers on top of it. Imports
 * {@code devfs.device} and {@code kernel}; imported by {@code uverbs}.
 */
package io.ibemu.emulator.uverbs.ioctl;
