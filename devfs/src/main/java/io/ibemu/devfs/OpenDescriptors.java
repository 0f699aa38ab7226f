package io.ibemu.devfs;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Whether any process still has a descriptor of a file, read from /proc: FUSE sends RELEASE only
 * after close(2) has returned (fput defers it), but FLUSH comes inside close(2), after
 * {@code file_close_fd} took the descriptor out of the caller's table. A FLUSH that finds no
 * descriptor left is therefore the last close, as the kernel's release would be.
 *
 * <p>Only processes in this daemon's mount namespace are looked at: only they see the FUSE
 * mount, so only they can have opened the file (one passed out by SCM_RIGHTS is missed).
 */
final class OpenDescriptors {
    private static final Path PROC = Path.of("/proc");

    private OpenDescriptors() {
    }

    /** Whether a descriptor of some process (this one included) links to a path ending in {@code "/" + name}. */
    static boolean anyLinkTo(String name) {
        String suffix = "/" + name;
        Path ownNamespace = namespace(PROC.resolve("self"));
        try (DirectoryStream<Path> processes = Files.newDirectoryStream(PROC, OpenDescriptors::isProcess)) {
            for (Path process : processes) {
                if (ownNamespace != null && !ownNamespace.equals(namespace(process))) {
                    continue;
                }
                if (hasLink(process.resolve("fd"), suffix)) {
                    return true;
                }
            }
        } catch (IOException e) {
            return true; // cannot tell: keep the file held until FUSE's RELEASE
        }
        return false;
    }

    private static boolean isProcess(Path p) {
        String n = p.getFileName().toString();
        return !n.isEmpty() && n.chars().allMatch(Character::isDigit);
    }

    private static Path namespace(Path process) {
        try {
            return Files.readSymbolicLink(process.resolve("ns/mnt"));
        } catch (IOException e) {
            return null; // gone, or a kernel thread
        }
    }

    private static boolean hasLink(Path fdDir, String suffix) {
        try (DirectoryStream<Path> fds = Files.newDirectoryStream(fdDir)) {
            for (Path fd : fds) {
                try {
                    if (Files.readSymbolicLink(fd).toString().endsWith(suffix)) {
                        return true;
                    }
                } catch (IOException e) {
                    // closed meanwhile
                }
            }
        } catch (IOException e) {
            // the process exited (or is exiting: its table is gone)
        }
        return false;
    }
}
