/**
 * Pictures of the fabric: what a drawing shows (nodes by tier, cables by state, local HCAs
 * marked), written as Graphviz DOT for {@code dot} to lay out, and the live page that serves
 * it. Reads the topology and the fabric; nothing below knows it exists.
 */
package io.ibemu.emulator.view;
