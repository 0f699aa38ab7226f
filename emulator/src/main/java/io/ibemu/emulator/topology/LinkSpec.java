package io.ibemu.emulator.topology;

/**
 * A cable between two ports, by node id. {@code width}/{@code speed} are what the link trains
 * to; null means the fabric's default.
 */
public record LinkSpec(String nodeA, int portA, String nodeB, int portB, LinkWidth width, LinkSpeed speed) {
}
