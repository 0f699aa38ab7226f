/**
 * Character devices served to programs: {@link io.ibemu.devfs.DeviceDirectory} mounts a FUSE
 * directory of device files (or, with the CUSE backend, real nodes through {@link
 * io.ibemu.devfs.CuseDevice}), presents them as nodes in the private namespace, and opens files
 * on a supervised caller's behalf. Below it, the transport of the device files: {@link
 * io.ibemu.devfs.DirectFileSystem} answers the directory requests of /dev/fuse itself and
 * {@link io.ibemu.devfs.DeviceRequests} the per-file ones (READ, WRITE, IOCTL, POLL, FLUSH,
 * RELEASE) on the {@link io.ibemu.devfs.device} model, joining the syscalls FUSE splits ({@link
 * io.ibemu.devfs.SplitSyscall}, {@link io.ibemu.devfs.BlockedSyscall}). The wire format is
 * {@link io.ibemu.devfs.fuse}'s; nothing here knows InfiniBand.
 */
package io.ibemu.devfs;
