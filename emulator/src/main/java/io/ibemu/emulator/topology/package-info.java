/**
 * Fabric descriptions: ibsim "net" files and ibnetdiscover output read by {@link
 * io.ibemu.emulator.topology.TopologyParser} into an immutable {@link
 * io.ibemu.emulator.topology.Topology}; {@link io.ibemu.emulator.topology.DefaultFabric} is the
 * built-in one. Imports nothing of ibemu; imported by {@code fabric}, {@code agent}, {@code hca},
 * {@code control}, {@code topology.generate} and {@code cli}.
 */
package io.ibemu.emulator.topology;
