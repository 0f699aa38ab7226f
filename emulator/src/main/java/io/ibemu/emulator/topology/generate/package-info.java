/**
 * Generated fabrics for tests and benchmarks: fat trees of two or three levels (with the 1k, 8k
 * and 20k presets), single switches, lines and rings, deterministic for the same parameters, built
 * as {@code topology.Topology} records. Imports only {@code topology}; {@code cli}'s {@code
 * topology generate} uses it.
 */
package io.ibemu.emulator.topology.generate;
