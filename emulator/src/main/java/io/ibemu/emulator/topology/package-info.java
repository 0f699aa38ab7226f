/**
 * Fabric descriptions: ibsim "net" files and ibnetdiscover output read by
 * {@link io.ibemu.emulator.topology.TopologyParser} into an immutable
 * {@link io.ibemu.emulator.topology.Topology}; {@link io.ibemu.emulator.topology.DefaultFabric}
 * is the built-in one.
 */
package io.ibemu.emulator.topology;
