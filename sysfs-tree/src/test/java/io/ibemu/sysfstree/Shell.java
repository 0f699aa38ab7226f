package io.ibemu.sysfstree;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** Runs a real program (through sh -c) and keeps its exit code and output. */
record Shell(int exitCode, String stdout, String stderr) {

    static Shell run(Path workingDirectory, String script) throws IOException, InterruptedException {
        ProcessBuilder builder = new ProcessBuilder(List.of("sh", "-c", script)).directory(workingDirectory.toFile());
        builder.environment().put("LC_ALL", "C");
        Process process = builder.start();
        process.getOutputStream().close();
        byte[] out = process.getInputStream().readAllBytes();
        byte[] err = process.getErrorStream().readAllBytes();
        if (!process.waitFor(20, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            throw new IOException("timed out: " + script);
        }
        return new Shell(process.exitValue(), new String(out, StandardCharsets.UTF_8), new String(err, StandardCharsets.UTF_8));
    }

    Shell ok() {
        if (exitCode != 0) {
            throw new AssertionError("exit " + exitCode + ": " + stderr);
        }
        return this;
    }
}
