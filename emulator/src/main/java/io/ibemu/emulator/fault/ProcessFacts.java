package io.ibemu.emulator.fault;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

/**
 * The facts of a call made by thread {@code tid}: its process's pid (tgid) and comm, read from
 * /proc once and only if a rule asks, then the point's own fixed facts.
 */
public final class ProcessFacts implements Facts {
    private final int tid;
    private final Map<String, String> fixed;
    private String pid;
    private String comm;

    public ProcessFacts(int tid, Map<String, String> fixed) {
        this.tid = tid;
        this.fixed = fixed;
    }

    @Override
    public String get(String key) {
        if (!key.equals("pid") && !key.equals("comm")) {
            return fixed.get(key);
        }
        if (pid == null) {
            pid = Integer.toString(tid); // a thread already gone stands for itself
            comm = "?";
            try {
                for (String line : Files.readAllLines(Path.of("/proc", Integer.toString(tid), "status"))) {
                    if (line.startsWith("Tgid:")) {
                        pid = line.substring(5).strip();
                    } else if (line.startsWith("Name:")) {
                        comm = line.substring(5).strip();
                    }
                }
            } catch (IOException e) {
                // the caller is gone: its tid stands for it
            }
        }
        return key.equals("pid") ? pid : comm;
    }
}
