package io.ibemu.emulator.uverbs.ioctl;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * One object type of the tree, as DECLARE_UVERBS_NAMED_OBJECT (or DECLARE_UVERBS_GLOBAL_METHODS
 * for DEVICE) declares it: its id (enum uverbs_default_objects) and its methods by id.
 */
public record ObjectSpec<T>(int id, String name, Map<Integer, MethodSpec<T>> methods, Kernel since) {

    @SafeVarargs
    public static <T> ObjectSpec<T> object(int id, String name, MethodSpec<T>... methods) {
        Map<Integer, MethodSpec<T>> byId = new LinkedHashMap<>();
        for (MethodSpec<T> m : methods) {
            if (byId.put(m.id(), m) != null) {
                throw new IllegalArgumentException(name + ": method " + m.id() + " declared twice");
            }
        }
        return new ObjectSpec<>(id, name, Collections.unmodifiableMap(byId), Kernel.oldest());
    }

    public ObjectSpec<T> since(Kernel k) {
        return new ObjectSpec<>(id, name, methods, k);
    }

    ObjectSpec<T> as(Kernel k) {
        Map<Integer, MethodSpec<T>> kept = new LinkedHashMap<>();
        methods.forEach((id, m) -> {
            if (k.atLeast(m.since())) {
                kept.put(id, m.as(k));
            }
        });
        return new ObjectSpec<>(id, name, Collections.unmodifiableMap(kept), since);
    }
}
