package io.ibemu.it;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * Compiles the C programs of integration-tests/src/test/c with gcc into
 * integration-tests/target/c-bin, once per source change:
 *
 * <pre>{@code
 * Path probe = CPrograms.compile("umad_libibumad");          // libraries from its "Build:" line
 * Path other = CPrograms.compile("my_probe", "-libumad", "-libmad");
 * Result r = ib.exec(probe.toString());
 * Tap.assertPassed(r);
 * }</pre>
 *
 * <p>Libraries: those given, plus every {@code -lNAME} on a line of the source
 * that contains {@code Build:} (the probes document their gcc line there).
 * Headers next to the source ({@code #include "probe.h"}) are found by gcc and
 * count for staleness. The binary lives in the repository, so it is visible
 * inside the emulator's namespace at the same path.
 */
public final class CPrograms {
    private static final Pattern LIB = Pattern.compile("(?<![\\w-])-l[\\w+.-]+");
    private static final List<String> CFLAGS = List.of("-O2", "-g", "-Wall");

    private CPrograms() {
    }

    /** integration-tests/src/test/c. */
    public static Path sourceDir() {
        return Ibemu.root().resolve("integration-tests/src/test/c");
    }

    /** integration-tests/target/c-bin. */
    public static Path binDir() {
        return Ibemu.targetDir().resolve("c-bin");
    }

    /** The names (without .c) of every C program in {@link #sourceDir()}. */
    public static List<String> all() {
        try (Stream<Path> s = Files.list(sourceDir())) {
            return s.map(p -> p.getFileName().toString()).filter(n -> n.endsWith(".c"))
                    .map(n -> n.substring(0, n.length() - 2)).sorted().toList();
        } catch (IOException e) {
            return List.of();
        }
    }

    /** The libraries named on the source's "Build:" lines. */
    public static List<String> buildLineLibraries(Path source) {
        Set<String> libs = new LinkedHashSet<>();
        try {
            for (String line : Files.readAllLines(source)) {
                if (line.contains("Build:")) {
                    Matcher m = LIB.matcher(line);
                    while (m.find()) {
                        libs.add(m.group());
                    }
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return List.copyOf(libs);
    }

    /**
     * Compiles src/test/c/NAME.c (if the binary is missing or older than the source
     * or a header beside it) and returns the binary's path. Fails the test with
     * gcc's messages if it does not compile.
     */
    public static synchronized Path compile(String name, String... libs) {
        return build(name, binDir().resolve(name), List.of(), libs);
    }

    /**
     * Like {@link #compile} but linked with {@code -static}, into c-bin/static/NAME: a
     * program that runs where the host's libraries are not (the kernel VM of scripts/kernel-vm).
     */
    public static synchronized Path compileStatic(String name, String... libs) {
        return build(name, binDir().resolve("static").resolve(name), List.of("-static"), libs);
    }

    private static Path build(String name, Path bin, List<String> extraFlags, String... libs) {
        Path src = sourceDir().resolve(name + ".c");
        if (!Files.isRegularFile(src)) {
            throw new AssertionError("no C source " + src);
        }
        try {
            Files.createDirectories(bin.getParent());
            if (upToDate(bin, src)) {
                return bin;
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        Set<String> allLibs = new LinkedHashSet<>(Arrays.asList(libs));
        allLibs.addAll(buildLineLibraries(src));
        List<String> argv = new ArrayList<>();
        argv.add(compilerOf(src));
        argv.addAll(CFLAGS);
        argv.addAll(extraFlags);
        argv.add("-I" + sourceDir());
        argv.add("-o");
        argv.add(bin.toString());
        argv.add(src.toString());
        argv.addAll(allLibs);
        Result r = Command.of(argv).timeout(Duration.ofMinutes(2)).run();
        if (!r.ok()) {
            throw new AssertionError("gcc failed for " + name + ".c: " + r);
        }
        return bin;
    }

    /** The compiler a source's "Build:" line names: mpicc for MPI programs, else gcc. */
    static String compilerOf(Path source) {
        try {
            for (String line : Files.readAllLines(source)) {
                int at = line.indexOf("Build:");
                if (at >= 0) {
                    String[] words = line.substring(at + 6).trim().split("\\s+");
                    return words.length > 0 && words[0].equals("mpicc") ? "mpicc" : "gcc";
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return "gcc";
    }

    private static boolean upToDate(Path bin, Path src) throws IOException {
        if (!Files.isExecutable(bin)) {
            return false;
        }
        long built = Files.getLastModifiedTime(bin).toMillis();
        try (Stream<Path> s = Files.list(src.getParent())) {
            return s.filter(p -> p.equals(src) || p.toString().endsWith(".h"))
                    .allMatch(p -> {
                        try {
                            return Files.getLastModifiedTime(p).toMillis() <= built;
                        } catch (IOException e) {
                            return false;
                        }
                    });
        }
    }
}
