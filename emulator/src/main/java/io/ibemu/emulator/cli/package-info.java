/**
 * The emulator's command line and its top: {@code Main} dispatches to the {@code daemon}, {@code
 * ctl} and {@code topology} commands; {@code Daemon} builds one running instance (fabric, MAD
 * layer, the devices on their transports, sysfs, udev, netlink, the control socket, the
 * supervisor) and tears it down; {@code Hotplug} owns the list of local HCAs. The only room that
 * may import every other one, and imported by none.
 */
package io.ibemu.emulator.cli;
