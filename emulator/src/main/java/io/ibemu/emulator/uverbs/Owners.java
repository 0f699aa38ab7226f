package io.ibemu.emulator.uverbs;

import io.ibemu.devfs.device.Caller;
import io.ibemu.emulator.hca.VerbsOwner;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** The process behind a caller's thread: its tgid and comm, as task_tgid_vnr and current->comm give them. */
final class Owners {

    private Owners() {
    }

    static VerbsOwner of(Caller caller) {
        int pid = caller.tid();
        String comm = "?";
        try {
            for (String line : Files.readAllLines(Path.of("/proc", Integer.toString(caller.tid()), "status"))) {
                if (line.startsWith("Tgid:")) {
                    pid = Integer.parseInt(line.substring(5).strip());
                } else if (line.startsWith("Name:")) {
                    comm = line.substring(5).strip();
                }
            }
        } catch (IOException | NumberFormatException e) {
            // the caller is gone: its tid stands for it
        }
        return new VerbsOwner(pid, comm);
    }
}
