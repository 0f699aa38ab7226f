package io.ibemu.it;

import java.time.Duration;
import java.util.List;

/**
 * What a finished command left: exit code, stdout, stderr, whether it was
 * killed for running past its timeout. {@link #toString()} shows all of it,
 * so a failed assertion explains itself.
 */
public record Result(List<String> command, int exitCode, String stdout, String stderr,
                     boolean timedOut, Duration elapsed) {

    public boolean ok() {
        return exitCode == 0 && !timedOut;
    }

    /** Throws with the whole result unless the command exited 0 in time. */
    public Result assertOk() {
        if (!ok()) {
            throw new AssertionError("command failed: " + this);
        }
        return this;
    }

    /** Throws with the whole result unless the command exited with {@code code} in time. */
    public Result assertExit(int code) {
        if (timedOut || exitCode != code) {
            throw new AssertionError("expected exit code " + code + ": " + this);
        }
        return this;
    }

    /** stdout without leading and trailing white space. */
    public String out() {
        return stdout.strip();
    }

    /** stdout's non-empty lines. */
    public List<String> lines() {
        return stdout.lines().filter(l -> !l.isBlank()).toList();
    }

    @Override
    public String toString() {
        return "\n  command: " + String.join(" ", command)
                + "\n  exit:    " + exitCode + (timedOut ? " (killed after its timeout)" : "")
                + " in " + elapsed.toMillis() + " ms"
                + "\n  stdout:  " + indent(stdout)
                + "\n  stderr:  " + indent(stderr);
    }

    private static String indent(String s) {
        String t = s.length() > 20_000 ? s.substring(0, 20_000) + "\n[... " + (s.length() - 20_000) + " more chars]" : s;
        return t.isEmpty() ? "(empty)" : t.strip().replace("\n", "\n           ");
    }
}
