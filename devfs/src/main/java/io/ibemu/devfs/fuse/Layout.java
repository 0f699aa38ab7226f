package io.ibemu.devfs.fuse;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A C structure of linux/fuse.h as this package reads or writes it: its name, size and the
 * offsets of the fields used. Declared once next to the record that decodes it; a unit test
 * compiles these against the system's linux/fuse.h.
 */
public record Layout(String name, int size, Map<String, Integer> offsets) {

    /** {@code fields}: name, offset, name, offset, ... in declaration order. */
    public static Layout of(String name, int size, Object... fields) {
        Map<String, Integer> offsets = new LinkedHashMap<>();
        for (int i = 0; i < fields.length; i += 2) {
            offsets.put((String) fields[i], (Integer) fields[i + 1]);
        }
        return new Layout(name, size, java.util.Collections.unmodifiableMap(offsets));
    }
}
