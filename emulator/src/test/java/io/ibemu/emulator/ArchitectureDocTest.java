package io.ibemu.emulator;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * docs/architecture.md names the steps of its walks as {@code `Class.method`}: each must be a
 * method declared in a {@code Class.java} of some module's main sources, so the page cannot
 * drift from the code unnoticed. The repository is found from the module's directory upwards,
 * so any checkout path works.
 */
class ArchitectureDocTest {

    /** A code span that is exactly a class and a method: {@code `Wire.send`}, {@code `Fabric.of()`}. */
    private static final Pattern NAMED = Pattern.compile("`([A-Z][a-z][A-Za-z0-9]*)\\.([a-z][A-Za-z0-9]*)(?:\\(\\))?`");
    private static final Set<String> NOT_TYPES = Set.of("return", "new", "throw", "else", "case", "yield", "assert");

    @Test
    void everyNamedMethodExists() {
        Path root = repositoryRoot();
        Set<String> named = namesIn(read(root.resolve("docs/architecture.md")));
        assertTrue(named.size() >= 40, "the walks name " + named.size() + " methods; the page lost its walks?");
        Set<String> missing = missing(named, sourcesByClass(root));
        assertEquals(Set.of(), missing, "docs/architecture.md names methods the sources do not declare");
    }

    /** The package map names every module and every package of the main sources. */
    @Test
    void everyModuleAndPackageIsOnTheMap() {
        Path root = repositoryRoot();
        String map = read(root.resolve("docs/architecture.md"));
        Set<String> missing = new TreeSet<>();
        for (Path module : modules(root)) {
            String name = module.getFileName().toString();
            if (!map.contains("`" + name + "/`")) {
                missing.add(name + "/");
            }
        }
        for (String pkg : packages(root)) {
            String shortName = pkg.startsWith(EMULATOR) ? pkg.substring(EMULATOR.length()) : pkg;
            if (!map.contains("`" + pkg + "`") && !map.contains("`" + shortName + "`")) {
                missing.add(pkg);
            }
        }
        assertEquals(Set.of(), missing, "docs/architecture.md's map leaves out these modules and packages");
    }

    /** Every package of these modules says what it is, what it imports and what imports it. */
    @Test
    void everyPackageHasAPackageInfo() {
        Path root = repositoryRoot();
        Set<String> missing = new TreeSet<>();
        for (String module : List.of("emulator", "sysfs-tree", "udev")) {
            for (Path dir : packageDirectories(root.resolve(module).resolve("src/main/java"))) {
                if (!Files.isRegularFile(dir.resolve("package-info.java"))) {
                    missing.add(module + ": " + root.resolve(module).resolve("src/main/java").relativize(dir));
                }
            }
        }
        assertEquals(Set.of(), missing, "packages without a package-info.java");
    }

    /** The check itself: a declared method passes, an invented one and an unknown class fail. */
    @Test
    void reportsWhatIsMissing() {
        Map<String, List<Path>> sources = sourcesByClass(repositoryRoot());
        Set<String> named = namesIn("`Wire.send` then `Wire.teleport` then `NoSuchClass.run()`");
        assertEquals(Set.of("Wire.teleport", "NoSuchClass.run"), missing(named, sources));
    }

    private static Set<String> namesIn(String markdown) {
        Set<String> names = new TreeSet<>();
        Matcher m = NAMED.matcher(markdown);
        while (m.find()) {
            names.add(m.group(1) + "." + m.group(2));
        }
        return names;
    }

    private static Set<String> missing(Set<String> named, Map<String, List<Path>> sources) {
        Set<String> missing = new TreeSet<>();
        for (String name : named) {
            int dot = name.indexOf('.');
            List<Path> files = sources.getOrDefault(name.substring(0, dot), List.of());
            if (files.stream().noneMatch(f -> declares(read(f), name.substring(dot + 1)))) {
                missing.add(name);
            }
        }
        return missing;
    }

    /** A declaration line: modifiers, a type (not a keyword), the name, an opening parenthesis. */
    private static boolean declares(String source, String method) {
        Pattern declaration = Pattern.compile("(?m)^\\s*(?:(?:public|protected|private|static|final|synchronized"
                + "|abstract|default|native)\\s+)*(?:<[^>]+>\\s+)?([\\w.$<>\\[\\],?]+)\\s+" + method + "\\s*\\(");
        Matcher m = declaration.matcher(source);
        while (m.find()) {
            if (!NOT_TYPES.contains(m.group(1))) {
                return true;
            }
        }
        return false;
    }

    private static final String EMULATOR = "io.ibemu.emulator.";

    /** The modules: directories of the top holding a pom.xml. */
    private static List<Path> modules(Path root) {
        try (Stream<Path> dirs = Files.list(root)) {
            return dirs.filter(d -> Files.isRegularFile(d.resolve("pom.xml"))).sorted().toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Every package of every module's main sources, dotted. */
    private static Set<String> packages(Path root) {
        Set<String> packages = new TreeSet<>();
        for (Path module : modules(root)) {
            Path main = module.resolve("src/main/java");
            for (Path dir : packageDirectories(main)) {
                packages.add(main.relativize(dir).toString().replace('/', '.'));
            }
        }
        return packages;
    }

    /** Directories under {@code main} that hold a .java file. */
    private static List<Path> packageDirectories(Path main) {
        if (!Files.isDirectory(main)) {
            return List.of();
        }
        try (Stream<Path> walk = Files.walk(main)) {
            return walk.filter(p -> p.toString().endsWith(".java") && !p.endsWith("package-info.java"))
                    .map(Path::getParent).distinct().sorted().toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Every main source file of every module, by its simple class name. */
    private static Map<String, List<Path>> sourcesByClass(Path root) {
        try (Stream<Path> modules = Files.list(root)) {
            List<Path> mains = modules.map(m -> m.resolve("src/main/java")).filter(Files::isDirectory).toList();
            List<Path> files = new ArrayList<>();
            for (Path main : mains) {
                try (Stream<Path> walk = Files.walk(main)) {
                    walk.filter(p -> p.toString().endsWith(".java")).forEach(files::add);
                }
            }
            return files.stream().collect(Collectors.groupingBy(
                    p -> p.getFileName().toString().replaceFirst("\\.java$", "")));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The checkout's top: the first directory upwards from the module holding docs/architecture.md. */
    private static Path repositoryRoot() {
        for (Path p = Path.of("").toAbsolutePath(); p != null; p = p.getParent()) {
            if (Files.isRegularFile(p.resolve("docs/architecture.md")) && Files.isRegularFile(p.resolve("pom.xml"))) {
                return p;
            }
        }
        throw new IllegalStateException("no docs/architecture.md above " + Path.of("").toAbsolutePath());
    }

    private static String read(Path p) {
        try {
            return Files.readString(p);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
