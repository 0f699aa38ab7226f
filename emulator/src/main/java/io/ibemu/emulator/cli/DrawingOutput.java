package io.ibemu.emulator.cli;

import io.ibemu.emulator.view.Graphviz;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/** Where a drawing goes: DOT to stdout, or a file laid out by dot after its extension. */
final class DrawingOutput {
    private DrawingOutput() {
    }

    /** Exit status: 0 written, 1 on failure (said on stderr). */
    static int write(String dot, Path output) {
        try {
            if (output == null) {
                System.out.print(dot);
                System.out.flush();
                return 0;
            }
            String format = Graphviz.formatOf(output.getFileName().toString());
            byte[] bytes = format == null ? dot.getBytes(StandardCharsets.UTF_8) : Graphviz.render(dot, format);
            Files.write(output, bytes);
            return 0;
        } catch (IllegalArgumentException | IOException e) {
            System.err.println("ibemu: draw: " + e.getMessage());
            return 1;
        }
    }
}
