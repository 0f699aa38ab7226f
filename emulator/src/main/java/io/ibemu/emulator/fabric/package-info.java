/**
 * The emulated subnet's model: {@link io.ibemu.emulator.fabric.Fabric}, {@link
 * io.ibemu.emulator.fabric.Node}, {@link io.ibemu.emulator.fabric.Port}, and each node's own
 * agents, the SMA and PMA, reached through {@link io.ibemu.emulator.fabric.Node#process}. All
 * mutable state is guarded by the fabric's one lock. Imports only {@code mad} and {@code
 * topology}; everything that shows or drives the subnet imports it ({@code agent}, {@code hca},
 * {@code device}, {@code umad}, {@code issm}, {@code sysfs}, {@code control}, {@code cli}), and it
 * knows none of them.
 */
package io.ibemu.emulator.fabric;
