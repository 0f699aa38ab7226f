package io.ibemu.emulator.uverbs.ioctl;

import io.ibemu.kernel.Errno;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * One method of an object, as DECLARE_UVERBS_NAMED_METHOD declares it: id, attributes by id, and
 * the handler that runs once every attribute is checked and every object it names is found.
 *
 * @param <T> what the handler acts on (the open file)
 */
public record MethodSpec<T>(int id, String name, Map<Integer, AttrSpec> attrs, Handler<T> handler, Kernel since) {

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
        return attrs.containsKey(AttrSpec.UHW_IN);
    }

    /** destroy_bkey: the attribute whose object the method destroys, or null. */
    public AttrSpec destroyAttr() {
        for (AttrSpec a : attrs.values()) {
            if (a.type() == AttrType.IDR && a.access() == Access.DESTROY) {
                return a;
            }
        }
        return null;
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
