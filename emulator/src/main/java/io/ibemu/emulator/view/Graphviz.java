package io.ibemu.emulator.view;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Locale;

/** Runs Graphviz's {@code dot} (Debian package graphviz) to lay a drawing out. */
public final class Graphviz {
    private Graphviz() {
    }

    /** The output format {@code dot -T} takes for a file name: svg, png, pdf; null for a .dot file (no layout). */
    public static String formatOf(String fileName) {
        String lower = fileName.toLowerCase(Locale.ROOT);
        int dot = lower.lastIndexOf('.');
        String ext = dot < 0 ? "" : lower.substring(dot + 1);
        return switch (ext) {
            case "svg", "png", "pdf" -> ext;
            case "dot", "gv" -> null;
            default -> throw new IllegalArgumentException("'" + fileName + "': write .svg, .png, .pdf or .dot (or .gv)");
        };
    }

    /** {@code dot -T<format>} over {@code source}: the picture's bytes. */
    public static byte[] render(String source, String format) throws IOException {
        Process p;
        try {
            p = new ProcessBuilder(List.of("dot", "-T" + format)).redirectError(ProcessBuilder.Redirect.PIPE).start();
        } catch (IOException e) {
            throw new IOException("cannot run Graphviz's dot (" + e.getMessage() + "): install the Debian package "
                    + "graphviz (scripts/setup-deps does)", e);
        }
        Thread feeder = new Thread(() -> {
            try (OutputStream in = p.getOutputStream()) {
                in.write(source.getBytes(StandardCharsets.UTF_8));
            } catch (IOException ignored) {
                // dot failed early; its status and stderr say why
            }
        }, "graphviz-input");
        feeder.start();
        ByteArrayOutputStream errors = new ByteArrayOutputStream();
        Thread errorReader = new Thread(() -> {
            try (InputStream err = p.getErrorStream()) {
                err.transferTo(errors);
            } catch (IOException ignored) {
                // nothing more to read
            }
        }, "graphviz-errors");
        errorReader.start();
        byte[] picture;
        try (InputStream out = p.getInputStream()) {
            picture = out.readAllBytes();
        }
        try {
            int status = p.waitFor();
            feeder.join();
            errorReader.join();
            if (status != 0) {
                throw new IOException("dot -T" + format + " failed (" + status + "): "
                        + errors.toString(StandardCharsets.UTF_8).strip());
            }
        } catch (InterruptedException e) {
            p.destroy();
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while dot ran", e);
        }
        return picture;
    }
}
