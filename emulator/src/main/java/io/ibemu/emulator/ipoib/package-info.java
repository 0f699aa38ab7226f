/**
 * IP over InfiniBand (RFC 4391/4392) as a kernel ULP inside the daemon: one TAP interface per
 * local port ({@code ibN}) in the instance's network namespace, carried over a UD QP of the HCA
 * model with the 4-byte IPoIB header; ARP and neighbour discovery rewritten between the TAP's
 * Ethernet-sized addresses and IPoIB's 20-byte ones; the broadcast group joined and paths looked
 * up through the SA ({@code sa}'s {@code SaClient}). Imports the model and the fabric ({@code hca},
 * {@code agent}, {@code fabric}, {@code mad}, {@code device}), {@code sa} and {@code kernel}; {@code
 * cli}, {@code control} and {@code rdmacm} (its netdevs and neighbours) import it.
 */
package io.ibemu.emulator.ipoib;
