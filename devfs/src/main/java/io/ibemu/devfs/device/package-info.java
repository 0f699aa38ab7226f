/**
 * What a driver implements and sees, whatever carries its files (FUSE, CUSE, a supervised socket
 * pair): {@link io.ibemu.devfs.device.CharDevice} opens {@link io.ibemu.devfs.device.DeviceFile}s,
 * whose read, write, ioctl, poll and release mirror the kernel's {@code file_operations}, for a
 * {@link io.ibemu.devfs.device.Caller} (the calling task: its ids, its memory, its interruption,
 * and new descriptors in its table). {@link io.ibemu.devfs.device.MessageFile} marks files whose
 * reads return one queued message whole (umad), which the supervisor may carry in a socket
 * pair; {@link io.ibemu.devfs.device.DeviceNode} is a node with its number and mode. The package
 * depends on {@link io.ibemu.kernel} only.
 */
package io.ibemu.devfs.device;
