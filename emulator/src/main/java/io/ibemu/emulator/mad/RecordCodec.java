package io.ibemu.emulator.mad;

import java.lang.reflect.Constructor;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.RecordComponent;
import java.lang.reflect.Type;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Decodes and encodes an immutable record through a {@link Layout}: each record component is the
 * field of the same name. Component types: {@code int} (fields up to 32 bits, the bit pattern),
 * {@code long}, {@code boolean} (1 bit), {@code String} (a NUL-padded byte field),
 * {@code List<Integer>} and {@code List<Long>} (array fields), {@code byte[]} (a byte-aligned
 * field copied as it is: a GID, CM private data). Built once per record type; a
 * component without a field, or a field without a component, is an error at class load.
 * Components are read and records built through core reflection, not method handles: adapting
 * handles to a generic shape spun ~100 lambda-form classes at the first MAD, whose bytecode
 * generator C2 then compiled cold with a 16 MB arena (docs/decisions.md, memory).
 */
public final class RecordCodec<R extends Record> {
    private enum Kind { INT, LONG, BOOLEAN, STRING, BYTES, INT_LIST, LONG_LIST }

    private record Binding(Field field, Kind kind, Method accessor) {
    }

    private final Class<R> type;
    private final Layout layout;
    private final List<Binding> bindings;
    private final Constructor<R> constructor;

    private RecordCodec(Class<R> type, Layout layout) {
        this.type = type;
        this.layout = layout;
        RecordComponent[] components = type.getRecordComponents();
        List<Binding> list = new ArrayList<>();
        Set<String> bound = new HashSet<>();
        Class<?>[] types = new Class<?>[components.length];
        try {
            for (int i = 0; i < components.length; i++) {
                RecordComponent c = components[i];
                types[i] = c.getType();
                Field f = layout.field(c.getName());
                Kind kind = kindOf(c, f);
                list.add(new Binding(f, kind, c.getAccessor()));
                bound.add(f.name());
            }
            this.constructor = type.getDeclaredConstructor(types);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException(type.getSimpleName() + ": " + e, e);
        }
        for (Field f : layout.fields()) {
            if (!bound.contains(f.name())) {
                throw new IllegalStateException(type.getSimpleName() + " has no component for field " + f.name());
            }
        }
        this.bindings = List.copyOf(list);
    }

    public static <R extends Record> RecordCodec<R> of(Class<R> type, Layout layout) {
        return new RecordCodec<>(type, layout);
    }

    public Layout layout() {
        return layout;
    }

    private Kind kindOf(RecordComponent c, Field f) {
        Class<?> t = c.getType();
        String where = type.getSimpleName() + "." + c.getName();
        Kind kind;
        if (t == int.class) {
            kind = Kind.INT;
        } else if (t == long.class) {
            kind = Kind.LONG;
        } else if (t == boolean.class) {
            kind = Kind.BOOLEAN;
        } else if (t == String.class) {
            kind = Kind.STRING;
        } else if (t == byte[].class) {
            kind = Kind.BYTES;
        } else if (t == List.class) {
            Type g = c.getGenericType();
            Type arg = g instanceof ParameterizedType p ? p.getActualTypeArguments()[0] : null;
            if (arg == Integer.class) {
                kind = Kind.INT_LIST;
            } else if (arg == Long.class) {
                kind = Kind.LONG_LIST;
            } else {
                throw new IllegalStateException(where + ": lists of " + arg + " are not supported");
            }
        } else {
            throw new IllegalStateException(where + ": type " + t.getSimpleName() + " is not supported");
        }
        boolean list = kind == Kind.INT_LIST || kind == Kind.LONG_LIST;
        boolean ok = switch (kind) {
            case INT, INT_LIST -> f.bitWidth() <= 32;
            case LONG, LONG_LIST -> f.bitWidth() <= 64;
            case BOOLEAN -> f.bitWidth() == 1;
            case STRING, BYTES -> f.count() == 1 && (f.bitWidth() & 7) == 0 && (f.bitOffset() & 7) == 0;
        };
        if (!ok || list != f.isArray()) {
            throw new IllegalStateException(
                    where + ": type does not fit field of " + f.bitWidth() + " bits x " + f.count());
        }
        return kind;
    }

    /** Reads the attribute at {@code offset}. */
    public R decode(byte[] b, int offset) {
        Object[] args = new Object[bindings.size()];
        for (int i = 0; i < args.length; i++) {
            Binding bd = bindings.get(i);
            Field f = bd.field();
            args[i] = switch (bd.kind()) {
                case INT -> (int) f.get(b, offset);
                case LONG -> f.get(b, offset);
                case BOOLEAN -> f.get(b, offset) != 0;
                case STRING -> text(b, offset + f.bitOffset() / 8, f.bitWidth() / 8);
                case BYTES -> Arrays.copyOfRange(b, offset + f.bitOffset() / 8,
                        offset + f.bitOffset() / 8 + f.bitWidth() / 8);
                case INT_LIST -> {
                    Integer[] v = new Integer[f.count()];
                    for (int k = 0; k < v.length; k++) {
                        v[k] = (int) f.get(b, offset, k);
                    }
                    yield List.of(v);
                }
                case LONG_LIST -> {
                    Long[] v = new Long[f.count()];
                    for (int k = 0; k < v.length; k++) {
                        v[k] = f.get(b, offset, k);
                    }
                    yield List.of(v);
                }
            };
        }
        try {
            return constructor.newInstance(args);
        } catch (InvocationTargetException e) {
            throw rethrown(e);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException(e);
        }
    }

    /** A fresh buffer of the attribute's size holding {@code r}. */
    public byte[] encode(R r) {
        byte[] b = new byte[layout.sizeBytes()];
        encode(r, b, 0);
        return b;
    }

    /**
     * Writes {@code r} at {@code offset}, reserved bits zero. A value that does not fit its field
     * is a programming error and throws.
     */
    public void encode(R r, byte[] b, int offset) {
        Arrays.fill(b, offset, offset + layout.sizeBytes(), (byte) 0);
        for (Binding bd : bindings) {
            Field f = bd.field();
            Object v = read(bd, r);
            switch (bd.kind()) {
                case INT -> f.set(b, offset, fit(f, ((Integer) v) & 0xFFFFFFFFL, f.bitWidth() == 32));
                case LONG -> f.set(b, offset, fit(f, (Long) v, f.bitWidth() == 64));
                case BOOLEAN -> f.set(b, offset, ((Boolean) v) ? 1 : 0);
                case STRING -> {
                    byte[] s = ((String) v).getBytes(StandardCharsets.UTF_8);
                    System.arraycopy(s, 0, b, offset + f.bitOffset() / 8, Math.min(s.length, f.bitWidth() / 8));
                }
                case BYTES -> {
                    // shorter is zero-padded (private data is fixed-length on the wire); longer is an error
                    byte[] bytes = (byte[]) v;
                    if (bytes.length > f.bitWidth() / 8) {
                        throw new IllegalArgumentException(
                                f.name() + " holds " + f.bitWidth() / 8 + " bytes, got " + bytes.length);
                    }
                    System.arraycopy(bytes, 0, b, offset + f.bitOffset() / 8, bytes.length);
                }
                case INT_LIST, LONG_LIST -> {
                    List<?> list = (List<?>) v;
                    if (list.size() != f.count()) {
                        throw new IllegalArgumentException(
                                f.name() + " needs " + f.count() + " entries, got " + list.size());
                    }
                    for (int k = 0; k < f.count(); k++) {
                        Object e = list.get(k);
                        long x = e instanceof Integer i ? i & 0xFFFFFFFFL : (Long) e;
                        f.set(b, offset, k, fit(f, x, f.bitWidth() >= 32));
                    }
                }
            }
        }
    }

    /** "Label:....value" lines, the shape smpquery prints. */
    public String dump(R r) {
        StringBuilder sb = new StringBuilder();
        for (Binding bd : bindings) {
            Field f = bd.field();
            String label = f.label() + ":";
            sb.append(label).append(".".repeat(Math.max(1, 32 - label.length())));
            Object v = read(bd, r);
            switch (bd.kind()) {
                case INT -> sb.append(wide(f) ? String.format("0x%x", v) : v);
                case LONG -> sb.append(String.format("0x%016x", v));
                case BOOLEAN -> sb.append(((Boolean) v) ? 1 : 0);
                case BYTES -> sb.append(java.util.HexFormat.of().formatHex((byte[]) v));
                default -> sb.append(v);
            }
            sb.append('\n');
        }
        return sb.toString();
    }

    private static boolean wide(Field f) {
        return f.bitWidth() >= 32;
    }

    private static Object read(Binding bd, Record r) {
        try {
            return bd.accessor().invoke(r);
        } catch (InvocationTargetException e) {
            throw rethrown(e);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException(e);
        }
    }

    /** What the constructor or accessor threw, unwrapped as invokeExact would have left it. */
    private static RuntimeException rethrown(InvocationTargetException e) {
        Throwable t = e.getCause();
        if (t instanceof RuntimeException r) {
            return r;
        }
        if (t instanceof Error err) {
            throw err;
        }
        return new IllegalStateException(t);
    }

    private static long fit(Field f, long v, boolean fullWidth) {
        if (!fullWidth && (v & ~Bits.mask(f.bitWidth())) != 0) {
            throw new IllegalArgumentException(f.name() + " = " + v + " does not fit " + f.bitWidth() + " bits");
        }
        return v;
    }

    private static String text(byte[] b, int from, int len) {
        int n = 0;
        while (n < len && b[from + n] != 0) {
            n++;
        }
        return new String(b, from, n, StandardCharsets.UTF_8);
    }
}
