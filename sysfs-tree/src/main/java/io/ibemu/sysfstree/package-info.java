/**
 * A sysfs-like tree served over FUSE, with no InfiniBand knowledge: directories ({@code SysDir}),
 * attribute files whose bytes are shown and stored live ({@code Attribute}), symlinks, on
 * libfuse2's low-level API driven by devfs's {@code libfuse} loop ({@code TreeFileSystem});
 * entries and attributes are cached in the kernel and invalidated when the tree changes ({@code
 * KernelCache}). Imports only devfs's {@code io.ibemu.devfs.libfuse} ({@code LowLevelMount},
 * {@code FuseLoop}) and {@code io.ibemu.kernel} ({@code Errno}, {@code Fatal}); the emulator's
 * {@code emulator.sysfs} lays the InfiniBand devices on it, and {@code io.ibemu.udev} adds their
 * {@code uevent} files.
 */
package io.ibemu.sysfstree;
