/**
 * The InfiniBand part of {@code /sys} as the kernel lays it out, built on the generic FUSE tree of
 * sysfs-tree ({@code io.ibemu.sysfs}): {@code /sys/class/infiniband*} links into {@code
 * /sys/devices}, a PCI function per HCA with the ids providers bind by, ports, GIDs, P_Keys and
 * counters read live from the fabric, each device's {@code uevent} file (udev), and the formats of
 * {@code core/sysfs.c} ({@code SysfsFormat}). Imports {@code fabric}, {@code mad}, {@code device},
 * {@code uverbs} (the uverbs class entries), {@code cm} (its port counters), {@code io.ibemu.sysfs}
 * and {@code io.ibemu.udev};
 * imported by {@code cli} and {@code nldev}. Not to be confused with {@code io.ibemu.sysfs}, which
 * knows no InfiniBand.
 */
package io.ibemu.emulator.sysfs;
