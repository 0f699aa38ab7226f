package io.ibemu.emulator.topology;

import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;

/**
 * The fabric used when no topology file is given: {@code default.net} beside this class, one
 * 8-port switch and three HCAs, the first of them (dual-port, port 2 without a cable) the local
 * one.
 */
public final class DefaultFabric {
    public static final String RESOURCE = "default.net";

    private DefaultFabric() {
    }

    public static Topology topology() {
        try (InputStream in = DefaultFabric.class.getResourceAsStream(RESOURCE)) {
            if (in == null) {
                throw new IllegalStateException("resource " + RESOURCE + " missing from the class path");
            }
            return TopologyParser.parse(RESOURCE, new InputStreamReader(in, StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (TopologyException e) {
            throw new IllegalStateException("built-in topology is broken: " + e.getMessage(), e);
        }
    }
}
