package io.ibemu.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Every C program in src/test/c compiles (with the libraries its "Build:" line
 * names), so a broken probe shows here even where no daemon runs; and the helper
 * reads those lines as it should. Needs gcc and the -dev packages of setup-deps.
 */
class CProgramsTest {

    @Test
    void everyProgramCompiles() {
        List<String> all = CPrograms.all();
        for (String name : all) {
            Path bin = CPrograms.compile(name);
            assertTrue(Files.isExecutable(bin), bin.toString());
            assertEquals(bin, CPrograms.compile(name), "second call reuses the binary");
        }
    }

    @Test
    void librariesComeFromTheBuildLine() throws Exception {
        Path src = Files.createTempFile(Ibemu.tmpDir(), "build-line", ".c");
        Files.writeString(src, "/*\n * Build: gcc -O2 -Wall -o x x.c -libumad -libmad\n */\nint main(void) { return 0; }\n");
        try {
            assertEquals(List.of("-libumad", "-libmad"), CPrograms.buildLineLibraries(src));
        } finally {
            Files.deleteIfExists(src);
        }
    }
}
