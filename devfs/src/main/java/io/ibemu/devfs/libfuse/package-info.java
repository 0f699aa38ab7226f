/**
 * libfuse2's low-level API for the sysfs tree ({@link io.ibemu.devfs.libfuse.LowLevelMount},
 * replies in {@link io.ibemu.devfs.libfuse.LowLevelReplies}), on a session loop run by Java
 * threads ({@link io.ibemu.devfs.libfuse.FuseLoop}) so that callbacks are plain upcalls, not a
 * native thread attached to the JVM per request. The device files do not use libfuse: they are
 * served on /dev/fuse directly ({@link io.ibemu.devfs}).
 */
package io.ibemu.devfs.libfuse;
