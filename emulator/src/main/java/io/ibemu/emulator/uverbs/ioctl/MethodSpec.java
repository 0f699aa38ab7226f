package io.ibemu.emulator.uverbs.ioctl;

import io.ibemu.kernel.Errno;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One method of an object, as DECLARE_UVERBS_NAMED_METHOD declares it: id, attributes by id, and
 * the handler that runs once every attribute is checked and every object it names is found.
 *
 * @param <T> what the handler acts on (the open file)
 */
public record MethodSpec<T>(int id, String name, Map<Integer, AttrSpec> attrs, Handler<T> handler, Kernel since,
                            Shape shape) {

    public MethodSpec(int id, String name, Map<Integer, AttrSpec> attrs, Handler<T> handler, Kernel since) {
        this(id, name, attrs, handler, since, Shape.of(attrs));
    }

    /**
     * The attributes as the dispatch of every call uses them, worked out once: each one's slot
     * (ids below {@link #DENSE} and the two UHW ids by array, as uapi_get_attr_id's bitmap does),
     * the mandatory ones, the destroyed object's, whether the method has udata.
     */
    public record Shape(AttrSpec[] specs, int[] slotOfId, AttrSpec[] mandatory, AttrSpec destroy, boolean udata) {
        static final int DENSE = 64;

        static Shape of(Map<Integer, AttrSpec> attrs) {
            AttrSpec[] specs = attrs.values().toArray(new AttrSpec[0]);
            int[] slotOfId = new int[DENSE + 2];
            Arrays.fill(slotOfId, -1);
            AttrSpec destroy = null;
            List<AttrSpec> mandatory = new ArrayList<>();
            for (int i = 0; i < specs.length; i++) {
                int at = index(specs[i].id());
                if (at < 0) {
                    throw new IllegalArgumentException("attribute id " + specs[i].id() + " is neither below " + DENSE
                            + " nor UHW_IN/UHW_OUT");
                }
                slotOfId[at] = i;
                if (specs[i].mandatory()) {
                    mandatory.add(specs[i]);
                }
                if (specs[i].type() == AttrType.IDR && specs[i].access() == Access.DESTROY) {
                    destroy = specs[i];
                }
            }
            return new Shape(specs, slotOfId, mandatory.toArray(new AttrSpec[0]), destroy,
                    attrs.containsKey(AttrSpec.UHW_IN));
        }

        /** The attribute's slot among {@link #specs}, or -1 when the method does not declare it. */
        int slot(int attrId) {
            int at = index(attrId);
            return at < 0 ? -1 : slotOfId[at];
        }

        /** Where {@code attrId} sits in {@link #slotOfId}: itself below DENSE, the UHW pair after; else -1. */
        private static int index(int attrId) {
            if (attrId >= 0 && attrId < DENSE) {
                return attrId;
            }
            return attrId == AttrSpec.UHW_IN || attrId == AttrSpec.UHW_OUT ? DENSE + attrId - AttrSpec.UHW_IN : -1;
        }
    }

    /** UVERBS_HANDLER: runs with the checked attributes. */
    @FunctionalInterface
    public interface Handler<T> {
        void run(T target, Bundle b) throws Errno;
    }

    /** uverbs_destroy_def_handler: the destroy itself was the work. */
    public static <T> Handler<T> nothing() {
        return (t, b) -> { };
    }

    public static <T> MethodSpec<T> method(int id, String name, Handler<T> handler, AttrSpec... attrs) {
        Map<Integer, AttrSpec> byId = new LinkedHashMap<>();
        for (AttrSpec a : attrs) {
            if (byId.put(a.id(), a) != null) {
                throw new IllegalArgumentException(name + ": attribute " + a.id() + " declared twice");
            }
        }
        return new MethodSpec<>(id, name, Collections.unmodifiableMap(byId), handler, Kernel.oldest());
    }

    public MethodSpec<T> since(Kernel k) {
        return new MethodSpec<>(id, name, attrs, handler, k);
    }

    /** has_udata: the method declares UVERBS_ATTR_UHW(). */
    public boolean hasUdata() {
        return shape.udata();
    }

    /** destroy_bkey: the attribute whose object the method destroys, or null. */
    public AttrSpec destroyAttr() {
        return shape.destroy();
    }

    /** The method as release {@code k} declares it: its attributes of that release. */
    MethodSpec<T> as(Kernel k) {
        Map<Integer, AttrSpec> kept = new LinkedHashMap<>();
        attrs.forEach((id, a) -> {
            if (k.atLeast(a.since())) {
                kept.put(id, a);
            }
        });
        return new MethodSpec<>(id, name, Collections.unmodifiableMap(kept), handler, since);
    }
}
