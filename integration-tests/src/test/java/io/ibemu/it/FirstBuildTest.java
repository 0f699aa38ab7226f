package io.ibemu.it;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Duration;
import java.util.Comparator;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * A newcomer's first command on a checkout that was never built: {@code scripts/ibemu} builds
 * the daemon with the real Maven and nothing of Maven's colour (ESC sequences) reaches the
 * terminal. Runs in a copy of the sources under target/, so the tested tree's jar is left alone.
 */
class FirstBuildTest {

    @Test
    void theFirstBuildPrintsNoEscapeSequences() throws IOException {
        Path copy = Ibemu.targetDir().resolve("first-build");
        deleteTree(copy);
        copySources(Ibemu.root(), copy);
        Path topology = copy.resolve("fabric.net");
        Files.writeString(topology, """
                Hca 1 "a"
                [1] "sw"[1]
                Switch 4 "sw"
                [1] "a"[1]
                """);
        // The launcher without IBEMU_NO_BUILD, as a user runs it; TERM as on a terminal.
        Result r = Command.of(copy.resolve("scripts/ibemu").toString(), "topology", "check", topology.toString())
                .env("PATH", Ibemu.pathWithSbin()).env("TERM", "xterm-256color").cwd(copy)
                .unsetEnv("IBEMU_NO_BUILD").unsetEnv("IBEMU_JAR").unsetEnv("MAVEN_OPTS")
                .timeout(Duration.ofMinutes(10)).run().assertOk();
        assertTrue(r.stderr().contains("building the daemon (emulator/target/emulator.jar is missing)"), r.toString());
        assertTrue(Files.isRegularFile(copy.resolve("emulator/target/emulator.jar")), "the build made the jar");
        assertFalse(r.stdout().contains("\u001b") || r.stderr().contains("\u001b"),
                "an escape sequence reached the terminal: " + r.toString().replace("\u001b", "<ESC>"));
        deleteTree(copy);
    }

    /** The build's inputs: poms, sources and scripts, without target/ and .git; integration tests by their pom only. */
    static void copySources(Path from, Path to) throws IOException {
        Files.walkFileTree(from, new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult preVisitDirectory(Path dir, BasicFileAttributes attrs) throws IOException {
                Path rel = from.relativize(dir);
                String name = dir.getFileName().toString();
                if (!rel.toString().isEmpty() && (name.equals("target") || name.equals(".git")
                        || rel.equals(Path.of("integration-tests/src")))) {
                    return FileVisitResult.SKIP_SUBTREE;
                }
                Files.createDirectories(to.resolve(rel));
                return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) throws IOException {
                Files.copy(file, to.resolve(from.relativize(file)), StandardCopyOption.COPY_ATTRIBUTES);
                return FileVisitResult.CONTINUE;
            }
        });
    }

    static void deleteTree(Path dir) throws IOException {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> s = Files.walk(dir)) {
            for (Path p : s.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        }
    }
}
