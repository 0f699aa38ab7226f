package io.ibemu.emulator.cli;

import io.ibemu.devfs.ns.MountNamespace;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * Where the InfiniBand tools keep state when nobody tells them otherwise, made private to the
 * instance: a user's own {@code opensm -o} inside {@code scripts/ibemu run} then writes the
 * instance's cache and log, which start empty and go with it, never the host's. The paths are
 * the tools' compiled-in defaults (Debian's builds, checked with strings(1) and their sources).
 */
final class ToolState {

    /** A directory a tool fills: private and empty, or private beside the host's entries. */
    record Place(Path dir, boolean empty, List<String> toolsPrefixes, String whose) {
        boolean leftOut(String name) {
            return toolsPrefixes.stream().anyMatch(name::startsWith);
        }
    }

    static final List<Place> PLACES = List.of(
            // OSM_DEFAULT_CACHE_DIR: guid2lid, guid2mkey, neighbors
            new Place(Path.of("/var/cache/opensm"), true, List.of(), "OpenSM's cache"),
            // OSM_DEFAULT_LOG_FILE and OSM_DEFAULT_TMP_DIR (opensm-subnet.lst, opensm.fdbs, opensm-*.dump);
            // rdma-core's ibacm logs to $localstatedir/log/ibacm.log
            new Place(Path.of("/var/log"), false, List.of("opensm", "ibacm"), "OpenSM's log and dumps, ibacm's log"),
            // rdma-core's daemons: $runstatedir/ibacm.{pid,port}, ibacm-tcp.port, ibacm-unix.sock,
            // srp_daemon's and iwpmd's files; udevadm's /run/udev is copied by the daemon itself
            new Place(Path.of("/run"), false, List.of("ibacm", "srp_daemon", "iwpmd"), "rdma-core's run files"));

    private ToolState() {
    }

    /** Makes every place private in this (the daemon's) mount namespace. */
    static void makePrivate() throws IOException {
        for (Place p : PLACES) {
            try {
                if (p.empty()) {
                    MountNamespace.privateEmpty(p.dir());
                } else if (Files.isDirectory(p.dir())) {
                    MountNamespace.privateEntries(p.dir(), p::leftOut);
                }
            } catch (IOException e) {
                throw new IOException("cannot make " + p.whose() + " (" + p.dir() + ") private to the instance: "
                        + e.getMessage(), e);
            }
        }
    }
}
