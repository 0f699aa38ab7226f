package io.ibemu.emulator.uverbs.ioctl;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The object/method/attribute tree a device serves ({@code struct uverbs_api}, built by
 * uverbs_uapi.c from the DECLARE_UVERBS_* definitions, with what the driver lacks left out).
 * Immutable: a profile of an older kernel is another tree ({@link #as}).
 */
public final class Uapi<T> {

    private final Map<Integer, ObjectSpec<T>> objects;

    public Uapi(List<ObjectSpec<T>> objects) {
        Map<Integer, ObjectSpec<T>> byId = new LinkedHashMap<>();
        for (ObjectSpec<T> o : objects) {
            if (byId.put(o.id(), o) != null) {
                throw new IllegalArgumentException("object " + o.id() + " declared twice");
            }
        }
        this.objects = Collections.unmodifiableMap(byId);
    }

    /** uapi_get_object: null when the device has no such object type. */
    public ObjectSpec<T> object(int id) {
        return objects.get(id);
    }

    /** The method the ioctl header names, or null (EPROTONOSUPPORT). */
    public MethodSpec<T> method(int objectId, int methodId) {
        ObjectSpec<T> o = objects.get(objectId);
        return o == null ? null : o.methods().get(methodId);
    }

    public Map<Integer, ObjectSpec<T>> objects() {
        return objects;
    }

    /** The tree release {@code k} serves: only the objects, methods and attributes it has. */
    public Uapi<T> as(Kernel k) {
        return new Uapi<>(objects.values().stream().filter(o -> k.atLeast(o.since())).map(o -> o.as(k)).toList());
    }
}
