/**
 * uevents of the emulated devices as the kernel raises them ({@code lib/kobject_uevent.c}): a
 * {@code Kobject} per device with its variables, one {@code Uevents} stream owning the sequence
 * numbers, the writable {@code uevent} attribute ({@code UeventFile}), and, with {@code --udev},
 * the {@code UdevWorker} that runs systemd's own rules engine ({@code udevadm test}) and the RUN
 * programs for each event inside the namespace. No InfiniBand knowledge; imports devfs's {@code
 * io.ibemu.devfs.ns} (the namespace), {@code io.ibemu.kernel} ({@code Errno}) and {@code
 * io.ibemu.sysfs}; imported by the emulator's {@code emulator.sysfs} and {@code cli}.
 */
package io.ibemu.udev;
