package io.ibemu.emulator.fault;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** The words of `ctl fault add|list|clear` and the lines of a --faults file, onto one {@link Faults}. */
public final class FaultControl {
    private final Faults faults;

    public FaultControl(Faults faults) {
        this.faults = faults;
    }

    /** One `fault` request, the words after "fault"; its reply lines. */
    public List<String> run(List<String> words) throws FaultSyntaxException {
        if (words.isEmpty()) {
            throw new FaultSyntaxException("fault needs add RULE, list or clear [ID]");
        }
        List<String> rest = words.subList(1, words.size());
        return switch (words.get(0)) {
            case "add" -> {
                if (rest.isEmpty()) {
                    throw new FaultSyntaxException("fault add needs a RULE, e.g. on=uverbs:CREATE_QP errno=ENOMEM nth=1");
                }
                yield List.of(Integer.toString(faults.add(String.join(" ", rest))));
            }
            case "list" -> {
                none(rest, "list");
                yield faults.list();
            }
            case "clear" -> {
                if (rest.isEmpty()) {
                    yield List.of("cleared " + faults.clear() + " rules");
                }
                if (rest.size() > 1 || !rest.get(0).matches("\\d{1,9}")) {
                    throw new FaultSyntaxException("fault clear takes one rule ID (as fault list prints it) or none");
                }
                int id = Integer.parseInt(rest.get(0));
                if (!faults.clear(id)) {
                    throw new FaultSyntaxException("no fault rule " + id + " (fault list shows the rules)");
                }
                yield List.of("cleared rule " + id);
            }
            default -> throw new FaultSyntaxException("unknown fault command '" + words.get(0)
                    + "': expected add RULE, list or clear [ID]");
        };
    }

    /**
     * The rules of a --faults file, one a line, # to the end of a line a comment: all of them or,
     * if one is malformed, none, with the line named.
     */
    public static List<String> readFile(Path file) throws FaultSyntaxException {
        List<String> lines;
        try {
            lines = Files.readAllLines(file);
        } catch (IOException e) {
            throw new FaultSyntaxException("cannot read fault rules " + file + ": " + e.getMessage());
        }
        List<String> rules = new ArrayList<>();
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i);
            int hash = line.indexOf('#');
            String rule = (hash < 0 ? line : line.substring(0, hash)).strip();
            if (rule.isEmpty()) {
                continue;
            }
            try {
                FaultRule.parse(rule);
            } catch (FaultSyntaxException e) {
                throw new FaultSyntaxException(file + " line " + (i + 1) + ": " + e.getMessage());
            }
            rules.add(rule);
        }
        return rules;
    }

    private static void none(List<String> rest, String verb) throws FaultSyntaxException {
        if (!rest.isEmpty()) {
            throw new FaultSyntaxException("fault " + verb + " takes no arguments");
        }
    }
}
