/**
 * The FUSE and CUSE kernel protocol as {@code linux/fuse.h} declares it, with no device
 * knowledge: the opcodes ({@link io.ibemu.devfs.fuse.Opcode}), the request and reply structures
 * ({@link io.ibemu.devfs.fuse.FuseIn}, {@link io.ibemu.devfs.fuse.FuseOut}), a /dev/fuse or
 * /dev/cuse descriptor ({@link io.ibemu.devfs.fuse.Channel}) and a session that reads requests
 * into per-worker buffers and dispatches them by opcode ({@link io.ibemu.devfs.fuse.Session}, on
 * a {@link io.ibemu.devfs.fuse.WorkerPool}), FUSE_INTERRUPT included. {@link io.ibemu.devfs}
 * builds the device files on it.
 */
package io.ibemu.devfs.fuse;
