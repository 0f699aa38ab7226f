package io.ibemu.emulator.topology;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CoderResult;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;

/**
 * A NodeDescription (IBA 14.2.5.2: 64 bytes, UTF-8 by intent, any bytes in fact: the kernel's
 * node_desc_store copies what it is given) as text, without losing a byte.
 * <ul>
 * <li>As a String ({@link NodeSpec#description()}): the bytes decoded as UTF-8, each byte of a
 * malformed sequence kept as the lone surrogate U+DC00+byte (the "surrogateescape" mapping of
 * PEP 383), so {@link #bytes} gives back exactly the bytes {@link #text} was given.</li>
 * <li>In a topology file, between the quotes of {@code # "..."}: {@link #quote} writes a backslash
 * as {@code \\}, a quote as {@code \"}, and every control character (C0, DEL, C1) and escaped byte
 * as {@code \xHH} per UTF-8 byte, as also whitespace other than a space (U+2028 and U+2029 end
 * a line for a regular expression); other characters as they are. {@link #unquote} reads those three
 * escapes and keeps any other backslash as it is, so ibnetdiscover's own output (which prints the
 * description raw, clean_nodedesc turning non-printables into spaces) reads as it always did
 * unless it holds one of these sequences. The result never holds a quote, NUL or line break, so a
 * description always ends at the line's last quote.</li>
 * </ul>
 */
public final class NodeDescriptionText {
    private static final int ESCAPED_BYTE = 0xDC00;

    private NodeDescriptionText() {
    }

    /** The bytes as a String: UTF-8, each byte of a malformed sequence as U+DC00+byte. */
    public static String text(byte[] bytes) {
        CharsetDecoder decoder = StandardCharsets.UTF_8.newDecoder()
                .onMalformedInput(CodingErrorAction.REPORT).onUnmappableCharacter(CodingErrorAction.REPORT);
        ByteBuffer in = ByteBuffer.wrap(bytes);
        CharBuffer out = CharBuffer.allocate(bytes.length);
        while (true) {
            CoderResult r = decoder.decode(in, out, true);
            if (r.isUnderflow()) {
                break;
            }
            for (int i = 0; i < r.length(); i++) {
                out.put((char) (ESCAPED_BYTE | (in.get() & 0xff)));
            }
        }
        decoder.flush(out);
        return out.flip().toString();
    }

    /** The bytes {@link #text} was given: UTF-8, U+DC80..U+DCFF back to the byte they stand for. */
    public static byte[] bytes(String text) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(text.length());
        int run = 0;
        for (int i = 0; i <= text.length(); i++) {
            if (i == text.length() || isEscapedByte(text, i)) {
                out.writeBytes(text.substring(run, i).getBytes(StandardCharsets.UTF_8));
                if (i < text.length()) {
                    out.write(text.charAt(i) & 0xff);
                }
                run = i + 1;
            }
        }
        return out.toByteArray();
    }

    /** A lone U+DC80..U+DCFF: the same char after a high surrogate is half of a real character. */
    private static boolean isEscapedByte(String text, int i) {
        char c = text.charAt(i);
        return c >= ESCAPED_BYTE + 0x80 && c <= ESCAPED_BYTE + 0xFF
                && (i == 0 || !Character.isHighSurrogate(text.charAt(i - 1)));
    }

    /** The description as it goes between the quotes of a topology file. */
    public static String quote(String text) {
        StringBuilder b = new StringBuilder(text.length() + 8);
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c == '\\' || c == '"') {
                b.append('\\').append(c);
            } else if (isEscapedByte(text, i)) {
                b.append(String.format("\\x%02x", c & 0xff));
            } else if (Character.isISOControl(c) || (Character.isWhitespace(c) && c != ' ')) {
                // also U+2028/U+2029, which end a line for java.util.regex's '.' and '$'
                for (byte x : String.valueOf(c).getBytes(StandardCharsets.UTF_8)) {
                    b.append(String.format("\\x%02x", x & 0xff));
                }
            } else {
                b.append(c);
            }
        }
        return b.toString();
    }

    /** What is between a topology file's quotes, back to the description: {@code \\ \" \xHH}. */
    public static String unquote(String quoted) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(quoted.length());
        int run = 0;
        int i = 0;
        while (i < quoted.length()) {
            int escape = escapeLength(quoted, i);
            if (escape == 0) {
                i++;
                continue;
            }
            out.writeBytes(bytes(quoted.substring(run, i)));
            char kind = quoted.charAt(i + 1);
            out.write(kind == 'x' ? Integer.parseInt(quoted.substring(i + 2, i + 4), 16) : kind);
            i += escape;
            run = i;
        }
        out.writeBytes(bytes(quoted.substring(run)));
        return text(out.toByteArray());
    }

    /** The length of the escape at {@code i}, 0 if there is none (a backslash kept as it is). */
    private static int escapeLength(String s, int i) {
        if (s.charAt(i) != '\\' || i + 1 >= s.length()) {
            return 0;
        }
        char kind = s.charAt(i + 1);
        if (kind == '\\' || kind == '"') {
            return 2;
        }
        if (kind == 'x' && i + 3 < s.length() && hex(s.charAt(i + 2)) && hex(s.charAt(i + 3))) {
            return 4;
        }
        return 0;
    }

    private static boolean hex(char c) {
        return Character.digit(c, 16) >= 0 && c < 0x80;
    }
}
