package io.ibemu.kernel;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A C struct of the user/kernel ABI declared as data: members in declaration order with their C
 * types, offsets computed with the natural alignment x86_64 gives them (so no offset is written by
 * hand), and each member reachable as a {@link CField}. Nested structs flatten into
 * {@code outer.inner} names.
 *
 * <pre>
 * static final CStruct ALLOC_PD = CStruct.named("ib_uverbs_alloc_pd").u64("response").build();
 * static final CField RESPONSE = ALLOC_PD.field("response");
 * </pre>
 */
public final class CStruct {

    private final String name;
    private final Map<String, CField> fields;
    private final int size;
    private final int alignment;
    /** Where each nested struct member ends (its padding included). */
    private final Map<String, Integer> nestedEnds;

    private CStruct(String name, Map<String, CField> fields, int size, int alignment, Map<String, Integer> nestedEnds) {
        this.name = name;
        this.fields = fields;
        this.size = size;
        this.alignment = alignment;
        this.nestedEnds = nestedEnds;
    }

    public static Builder named(String name) {
        return new Builder(name);
    }

    public String name() {
        return name;
    }

    /** sizeof(struct), padded to its alignment. */
    public int size() {
        return size;
    }

    public CField field(String member) {
        CField f = fields.get(member);
        if (f == null) {
            throw new IllegalArgumentException(name + " has no member " + member);
        }
        return f;
    }

    /** offsetofend(struct, member), for a scalar, array or nested struct member. */
    public int endOf(String member) {
        Integer nested = nestedEnds.get(member);
        return nested != null ? nested : field(member).end();
    }

    public Map<String, CField> fields() {
        return fields;
    }

    /** Builds a struct member by member, aligning each to its own size (arrays: to their element). */
    public static final class Builder {
        private final String name;
        private final Map<String, CField> fields = new LinkedHashMap<>();
        private final Map<String, Integer> nestedEnds = new LinkedHashMap<>();
        private int offset;
        private int alignment = 1;

        private Builder(String name) {
            this.name = name;
        }

        public Builder u8(String member) {
            return scalar(member, 1, false);
        }

        public Builder u16(String member) {
            return scalar(member, 2, false);
        }

        public Builder u32(String member) {
            return scalar(member, 4, false);
        }

        public Builder u64(String member) {
            return scalar(member, 8, false);
        }

        public Builder be16(String member) {
            return scalar(member, 2, true);
        }

        public Builder be32(String member) {
            return scalar(member, 4, true);
        }

        public Builder be64(String member) {
            return scalar(member, 8, true);
        }

        /**
         * {@code packed_ulong member[count]} of ib_user_mad.h: host-order 64-bit words aligned to 4
         * bytes only, named {@code member[i]}.
         */
        public Builder packedUlongs(String member, int count) {
            align(4);
            for (int i = 0; i < count; i++) {
                add(new CField(member + "[" + i + "]", offset, 8, false));
                offset += 8;
            }
            return this;
        }

        /** {@code __u8 member[count]}: read and written as bytes. */
        public Builder bytes(String member, int count) {
            align(1);
            add(CField.bytes(member, offset, count));
            offset += count;
            return this;
        }

        /** {@code __uN reserved[count]} of any element width: skipped space with the element's alignment. */
        public Builder pad(int elementSize, int count) {
            align(elementSize);
            offset += elementSize * count;
            return this;
        }

        /** A nested struct, its members named {@code member.inner}. */
        public Builder struct(String member, CStruct inner) {
            align(inner.alignment);
            int base = offset;
            for (CField f : inner.fields.values()) {
                add(new CField(member + "." + f.name(), base + f.offset(), f.size(), f.bigEndian()));
            }
            inner.nestedEnds.forEach((n, end) -> nestedEnds.put(member + "." + n, base + end));
            offset = base + inner.size;
            nestedEnds.put(member, offset);
            return this;
        }

        public CStruct build() {
            int padded = (offset + alignment - 1) / alignment * alignment;
            return new CStruct(name, Map.copyOf(fields), padded, alignment, Map.copyOf(nestedEnds));
        }

        private Builder scalar(String member, int size, boolean bigEndian) {
            align(size);
            add(new CField(member, offset, size, bigEndian));
            offset += size;
            return this;
        }

        private void align(int a) {
            offset = (offset + a - 1) / a * a;
            alignment = Math.max(alignment, a);
        }

        private void add(CField f) {
            if (fields.putIfAbsent(f.name(), f) != null) {
                throw new IllegalArgumentException(name + ": member " + f.name() + " declared twice");
            }
        }
    }
}
