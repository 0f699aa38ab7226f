package io.ibemu.udev;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * One RUN entry as udevd starts it (udev-event.c, udev_event_spawn/udev_event_execute_run): the
 * words split with quotes removed (strv_split_full with EXTRACT_UNQUOTE|EXTRACT_RELAX|
 * EXTRACT_RETAIN_ESCAPE: a backslash stays), a program without a '/' looked for in
 * /usr/lib/udev. `udevadm test` prints RUN{builtin} entries alike; they are recognised by name.
 */
public record RunProgram(List<String> argv, boolean builtin) {

    static final String LIBEXEC = "/usr/lib/udev/";
    /** systemd 252's udev builtins (udev-builtin.h), which RUN{builtin} names. */
    private static final Set<String> BUILTINS = Set.of("blkid", "btrfs", "hwdb", "input_id", "keyboard",
            "kmod", "net_id", "net_setup_link", "path_id", "usb_id", "uaccess");

    public RunProgram {
        argv = List.copyOf(argv);
    }

    public static RunProgram of(String line) {
        List<String> words = split(line);
        if (words.isEmpty()) {
            return new RunProgram(words, false);
        }
        String first = words.get(0);
        if (first.startsWith("/")) {
            return new RunProgram(words, false);
        }
        if (BUILTINS.contains(first) && !new java.io.File(LIBEXEC + first).exists()) {
            return new RunProgram(words, true);
        }
        List<String> argv = new ArrayList<>(words);
        argv.set(0, LIBEXEC + first);
        return new RunProgram(argv, false);
    }

    /** Whitespace separates words; '...' and "..." group and are removed; an open quote runs to the end. */
    static List<String> split(String line) {
        List<String> words = new ArrayList<>();
        StringBuilder word = null;
        char quote = 0;
        for (int i = 0; i < line.length(); i++) {
            char c = line.charAt(i);
            if (quote != 0) {
                if (c == quote) {
                    quote = 0;
                } else {
                    word.append(c);
                }
            } else if (c == '\'' || c == '"') {
                quote = c;
                word = word == null ? new StringBuilder() : word;
            } else if (Character.isWhitespace(c)) {
                if (word != null) {
                    words.add(word.toString());
                    word = null;
                }
            } else {
                word = word == null ? new StringBuilder() : word;
                word.append(c);
            }
        }
        if (word != null) {
            words.add(word.toString());
        }
        return words;
    }
}
