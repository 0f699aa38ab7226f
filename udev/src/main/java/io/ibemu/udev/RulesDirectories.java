package io.ibemu.udev;

import io.ibemu.devfs.ns.MountNamespace;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

/**
 * Makes the namespace's udev read only the given rules directories: their *.rules files (the
 * first directory given wins a name, as /etc wins over /usr/lib) are linked from one directory
 * that is bound over /etc/udev/rules.d, and an empty directory hides each of the system's other
 * rules directories (udev's search path: /etc, /run, /usr/local/lib, /usr/lib/udev/rules.d).
 */
public final class RulesDirectories {

    private static final List<Path> SYSTEM = List.of(Path.of("/run/udev/rules.d"),
            Path.of("/usr/local/lib/udev/rules.d"), Path.of("/usr/lib/udev/rules.d"), Path.of("/lib/udev/rules.d"));
    private static final Path ETC = Path.of("/etc/udev/rules.d");

    private RulesDirectories() {
    }

    /** Only {@code dirs}' rules from now on, in this (private) namespace; {@code work} holds the links. */
    public static void only(List<Path> dirs, Path work) throws IOException {
        Path merged = Files.createDirectories(work.resolve("rules.d"));
        Path empty = Files.createDirectories(work.resolve("empty"));
        for (Path dir : dirs) {
            if (!Files.isDirectory(dir)) {
                throw new IOException("--rules " + dir + ": not a directory");
            }
            try (Stream<Path> files = Files.list(dir)) {
                for (Path file : files.sorted().toList()) {
                    Path link = merged.resolve(file.getFileName().toString());
                    if (file.toString().endsWith(".rules") && !Files.exists(link, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
                        Files.createSymbolicLink(link, file.toAbsolutePath());
                    }
                }
            }
        }
        MountNamespace.graft(merged, ETC);
        java.util.Set<Path> hidden = new java.util.HashSet<>();
        for (Path system : SYSTEM) {
            // /lib/udev is /usr/lib/udev on a merged /usr: hide each directory once
            if (Files.isDirectory(system) && hidden.add(system.toRealPath())) {
                MountNamespace.graft(empty, system);
            }
        }
    }
}
