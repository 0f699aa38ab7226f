/**
 * The emulated subnet's model: {@link io.ibemu.emulator.fabric.Fabric},
 * {@link io.ibemu.emulator.fabric.Node}, {@link io.ibemu.emulator.fabric.Port}, and each node's
 * own agents, the SMA and PMA, reached through {@link io.ibemu.emulator.fabric.Node#process}.
 * All mutable state is guarded by the fabric's one lock.
 */
package io.ibemu.emulator.fabric;
