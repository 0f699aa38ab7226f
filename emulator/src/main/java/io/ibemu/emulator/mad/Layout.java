package io.ibemu.emulator.mad;

import java.util.BitSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * An attribute's table of fields, declared once (the role of libibmad's fields.c). Checked when
 * built: every field inside the attribute, no two fields sharing a bit.
 */
public final class Layout {
    private final String name;
    private final int sizeBytes;
    private final List<Field> fields;
    private final Map<String, Field> byName = new LinkedHashMap<>();

    private Layout(String name, int sizeBytes, List<Field> fields) {
        this.name = name;
        this.sizeBytes = sizeBytes;
        this.fields = List.copyOf(fields);
        BitSet used = new BitSet(sizeBytes * 8);
        for (Field f : this.fields) {
            if (byName.put(f.name(), f) != null) {
                throw new IllegalStateException(name + ": field " + f.name() + " declared twice");
            }
            if (f.endBit() > sizeBytes * 8) {
                throw new IllegalStateException(name + ": field " + f.name() + " ends past byte " + sizeBytes);
            }
            for (int i = 0; i < f.count(); i++) {
                int from = f.bitOffset() + i * f.strideBits();
                if (used.get(from, from + f.bitWidth()).cardinality() != 0) {
                    throw new IllegalStateException(name + ": field " + f.name() + " overlaps another");
                }
                used.set(from, from + f.bitWidth());
            }
        }
    }

    public static Layout of(String name, int sizeBytes, Field... fields) {
        return new Layout(name, sizeBytes, List.of(fields));
    }

    public String name() {
        return name;
    }

    public int sizeBytes() {
        return sizeBytes;
    }

    public List<Field> fields() {
        return fields;
    }

    public Field field(String fieldName) {
        Field f = byName.get(fieldName);
        if (f == null) {
            throw new IllegalArgumentException(name + " has no field " + fieldName);
        }
        return f;
    }

    public boolean has(String fieldName) {
        return byName.containsKey(fieldName);
    }
}
