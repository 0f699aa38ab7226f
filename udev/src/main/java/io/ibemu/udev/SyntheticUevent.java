package io.ibemu.udev;

import io.ibemu.kernel.Errno;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * What was written to a uevent file, parsed as kobject_synth_uevent does: "ACTION", or
 * "ACTION UUID [KEY=VALUE]..." (alphanumeric keys and values) giving SYNTH_UUID and
 * SYNTH_ARG_KEY; without a UUID,
 * SYNTH_UUID=0. Anything else is EINVAL, as the kernel's uevent_store returns.
 */
public record SyntheticUevent(UeventAction action, Map<String, String> variables) {

    /** uuid_is_valid: 8-4-4-4-12 hex digits. */
    private static final Pattern UUID = Pattern.compile(
            "\\p{XDigit}{8}-\\p{XDigit}{4}-\\p{XDigit}{4}-\\p{XDigit}{4}-\\p{XDigit}{12}");
    private static final int UUID_STRING_LEN = 36;
    /** action_arg_word_end: keys and values are non-empty runs of letters and digits. */
    private static final Pattern WORD = Pattern.compile("[A-Za-z0-9]+");

    public SyntheticUevent {
        variables = Collections.unmodifiableMap(new LinkedHashMap<>(variables));
    }

    public static SyntheticUevent parse(String written) throws Errno {
        String text = trimmed(written);
        int space = text.indexOf(' ');
        String word = space < 0 ? text : text.substring(0, space);
        UeventAction action = UeventAction.of(word).orElseThrow(() -> Errno.of(Errno.EINVAL));
        Map<String, String> vars = new LinkedHashMap<>();
        if (space < 0) {
            vars.put("SYNTH_UUID", "0");
            return new SyntheticUevent(action, vars);
        }
        arguments(text.substring(space + 1), vars);
        return new SyntheticUevent(action, vars);
    }

    /** kobject_action_args: a UUID, then " KEY=VALUE" pairs with non-empty keys and values. */
    private static void arguments(String args, Map<String, String> vars) throws Errno {
        if (args.length() < UUID_STRING_LEN || !UUID.matcher(args.substring(0, UUID_STRING_LEN)).matches()) {
            throw Errno.of(Errno.EINVAL);
        }
        vars.put("SYNTH_UUID", args.substring(0, UUID_STRING_LEN));
        String rest = args.substring(UUID_STRING_LEN);
        while (!rest.isEmpty()) {
            if (rest.charAt(0) != ' ') {
                throw Errno.of(Errno.EINVAL);
            }
            rest = rest.substring(1);
            int end = rest.indexOf(' ');
            String pair = end < 0 ? rest : rest.substring(0, end);
            int eq = pair.indexOf('=');
            if (eq < 0 || !WORD.matcher(pair.substring(0, eq)).matches()
                    || !WORD.matcher(pair.substring(eq + 1)).matches()) {
                throw Errno.of(Errno.EINVAL);
            }
            vars.put("SYNTH_ARG_" + pair.substring(0, eq), pair.substring(eq + 1));
            rest = end < 0 ? "" : rest.substring(end);
        }
    }

    /** The kernel drops one trailing newline or NUL (what echo adds). */
    private static String trimmed(String written) {
        if (!written.isEmpty() && (written.endsWith("\n") || written.endsWith("\0"))) {
            return written.substring(0, written.length() - 1);
        }
        return written;
    }
}
