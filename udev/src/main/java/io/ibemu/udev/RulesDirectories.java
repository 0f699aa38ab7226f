package io.ibemu.udev;

import io.ibemu.devfs.ns.MountNamespace;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

/**
 * Gives the namespace's udev the given rules directories: their *.rules files (the first
 * directory given wins a name, as /etc wins over /usr/lib) are linked from one directory that
 * is bound over /etc/udev/rules.d. {@link #added} keeps the system's rules beside them, as a file
 * dropped into /etc/udev/rules.d would be; {@link #only} hides each of the system's rules
 * directories (udev's search path: /etc, /run, /usr/local/lib, /usr/lib/udev/rules.d).
 */
public final class RulesDirectories {

    private static final List<Path> SYSTEM = List.of(Path.of("/run/udev/rules.d"),
            Path.of("/usr/local/lib/udev/rules.d"), Path.of("/usr/lib/udev/rules.d"), Path.of("/lib/udev/rules.d"));
    private static final Path ETC = Path.of("/etc/udev/rules.d");

    private RulesDirectories() {
    }

    /**
     * {@code dirs}' rules besides the system's from now on, in this (private) namespace: the host's
     * own /etc/udev/rules.d entries are copied in after them (a name given in {@code dirs} wins, as
     * a user's file replaces one of the same name there); {@code work} holds the directory.
     */
    public static void added(List<Path> dirs, Path work) throws IOException {
        Path merged = merge(dirs, work);
        if (Files.isDirectory(ETC)) {
            try (Stream<Path> files = Files.list(ETC)) {
                for (Path file : files.sorted().toList()) {
                    Path made = merged.resolve(file.getFileName().toString());
                    if (!Files.exists(made, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
                        // a copy, not a link: the link would lead into the directory bound over ETC
                        Files.copy(file, made, java.nio.file.LinkOption.NOFOLLOW_LINKS);
                    }
                }
            }
        }
        MountNamespace.graft(merged, ETC);
    }

    /** Only {@code dirs}' rules from now on, in this (private) namespace; {@code work} holds the links. */
    public static void only(List<Path> dirs, Path work) throws IOException {
        Path merged = merge(dirs, work);
        Path empty = Files.createDirectories(work.resolve("empty"));
        MountNamespace.graft(merged, ETC);
        java.util.Set<Path> hidden = new java.util.HashSet<>();
        for (Path system : SYSTEM) {
            // /lib/udev is /usr/lib/udev on a merged /usr: hide each directory once
            if (Files.isDirectory(system) && hidden.add(system.toRealPath())) {
                MountNamespace.graft(empty, system);
            }
        }
    }

    /** One directory with a link to each *.rules file of {@code dirs}, the first of a name winning. */
    private static Path merge(List<Path> dirs, Path work) throws IOException {
        Path merged = Files.createDirectories(work.resolve("rules.d"));
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
        return merged;
    }
}
