package io.ibemu.emulator.uverbs;

/**
 * One entry of a file's {@link ObjectTable}: {@code struct ib_uobject} with the counters of
 * {@code ib_uevent_object}/{@code ib_ucq_object} — how many of the object's events the process has
 * read, which destroy responses report so libibverbs can wait for its acks.
 */
final class UObject<T> {

    private final ObjectType type;
    private final int handle;
    private final T object;
    private final long userHandle;
    private final long order;
    private int asyncEventsReported; // guarded by this
    private int compEventsReported; // guarded by this

    UObject(ObjectType type, int handle, T object, long userHandle, long order) {
        this.type = type;
        this.handle = handle;
        this.object = object;
        this.userHandle = userHandle;
        this.order = order;
    }

    ObjectType type() {
        return type;
    }

    int handle() {
        return handle;
    }

    T object() {
        return object;
    }

    /** The caller's cookie (user_handle) that events carry back. */
    long userHandle() {
        return userHandle;
    }

    long order() {
        return order;
    }

    synchronized void asyncEventRead() {
        asyncEventsReported++;
    }

    synchronized void compEventRead() {
        compEventsReported++;
    }

    synchronized int asyncEventsReported() {
        return asyncEventsReported;
    }

    synchronized int compEventsReported() {
        return compEventsReported;
    }

    @Override
    public String toString() {
        return type + "#" + handle;
    }
}
