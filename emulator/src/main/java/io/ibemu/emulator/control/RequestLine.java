package io.ibemu.emulator.control;

import java.util.ArrayList;
import java.util.List;

/**
 * One request on the wire: the command's words separated by spaces, a word with spaces, quotes,
 * backslashes or control characters written in double quotes with backslash escapes ({@code \"},
 * {@code \\}, {@code \n}, {@code \t}), so a topology line like {@code Hca 1 "x"} travels as one word.
 */
public final class RequestLine {
    private RequestLine() {
    }

    public static String join(List<String> words) {
        StringBuilder out = new StringBuilder();
        for (String w : words) {
            if (out.length() > 0) {
                out.append(' ');
            }
            out.append(quote(w));
        }
        return out.toString();
    }

    static String quote(String word) {
        boolean plain = !word.isEmpty();
        for (int i = 0; i < word.length() && plain; i++) {
            char c = word.charAt(i);
            plain = c > ' ' && c != '"' && c != '\\' && c != 0x7F;
        }
        if (plain) {
            return word;
        }
        StringBuilder out = new StringBuilder("\"");
        for (int i = 0; i < word.length(); i++) {
            char c = word.charAt(i);
            switch (c) {
                case '"' -> out.append("\\\"");
                case '\\' -> out.append("\\\\");
                case '\n' -> out.append("\\n");
                case '\t' -> out.append("\\t");
                case '\r' -> out.append("\\r");
                default -> out.append(c);
            }
        }
        return out.append('"').toString();
    }

    /** The words of a request line; a comment line ({@code #...}) or a blank one has none. */
    public static List<String> split(String line) throws ControlException {
        List<String> words = new ArrayList<>();
        int i = 0;
        int n = line.length();
        while (true) {
            while (i < n && Character.isWhitespace(line.charAt(i))) {
                i++;
            }
            if (i >= n || (words.isEmpty() && line.charAt(i) == '#')) {
                return words;
            }
            StringBuilder w = new StringBuilder();
            if (line.charAt(i) == '"') {
                i++;
                while (true) {
                    if (i >= n) {
                        throw new ControlException("unterminated quoted word in the request: close it with \"");
                    }
                    char c = line.charAt(i++);
                    if (c == '"') {
                        break;
                    }
                    if (c == '\\') {
                        if (i >= n) {
                            throw new ControlException("a backslash ends the request: write \\\\ for one");
                        }
                        char e = line.charAt(i++);
                        w.append(switch (e) {
                            case 'n' -> '\n';
                            case 't' -> '\t';
                            case 'r' -> '\r';
                            default -> e;
                        });
                    } else {
                        w.append(c);
                    }
                }
                if (i < n && !Character.isWhitespace(line.charAt(i))) {
                    throw new ControlException("a quoted word must be followed by a space, at column " + (i + 1));
                }
            } else {
                while (i < n && !Character.isWhitespace(line.charAt(i))) {
                    w.append(line.charAt(i++));
                }
            }
            words.add(w.toString());
        }
    }
}
