package io.ibemu.emulator.uverbs;

import io.ibemu.kernel.Errno;
import io.ibemu.emulator.uverbs.ioctl.Access;
import io.ibemu.emulator.uverbs.ioctl.UObjects;

/**
 * A file's objects as the ioctl path reaches them: lookups in its {@link ObjectTable}, new
 * handles reserved there (idr_add_uobj) and filled or dropped when the method ends.
 */
final class FileObjects implements UObjects {

    private final UverbsFile file;

    FileObjects(UverbsFile file) {
        this.file = file;
    }

    @Override
    public Object lookup(int objectId, Access access, long id) throws Errno {
        ObjectType type = ObjectType.ofUapi(objectId);
        if (type == null) {
            return descriptor(objectId, id);
        }
        if (file.device.isGone()) {
            // disassociated: the objects went with the device (UverbsFile.disassociate), so a destroy
            // answers EIO as this file's write() path does, which libibverbs takes as done
            // (verbs_is_destroy_err); any other method EIO as uverbs_disassociate_api leaves it
            throw Errno.of(Errno.EIO);
        }
        return file.objects.get(type, id);
    }

    /**
     * lookup_get_fd_uobject: a descriptor of this context's completion channels or async event
     * files, by the number the caller got; EBADF for any other.
     */
    private EventFile descriptor(int objectId, long fd) throws Errno {
        java.util.Map<Integer, EventFile> files = switch (objectId) {
            case io.ibemu.emulator.uverbs.ioctl.UapiIds.OBJECT_COMP_CHANNEL -> file.channels;
            case io.ibemu.emulator.uverbs.ioctl.UapiIds.OBJECT_ASYNC_EVENT -> file.asyncFiles;
            // an object type the device lacks (RWQ_IND_TBL of QP_CREATE): EINVAL whatever the handle (6.1 in the VM)
            default -> throw Errno.of(Errno.EINVAL);
        };
        EventFile f = fd < 0 || fd > Integer.MAX_VALUE ? null : files.get((int) fd);
        if (f == null || f.isReleased()) {
            throw Errno.of(Errno.EBADF);
        }
        return f;
    }

    @Override
    public Pending allocate(int objectId) throws Errno {
        if (file.device.isGone()) {
            throw Errno.of(Errno.EIO);
        }
        file.requireContext(); // alloc_uobj: ib_uverbs_get_ucontext_file
        ObjectType type = ObjectType.ofUapi(objectId);
        if (type == null) {
            return new Pending() { // an FD object: its descriptor comes with the file (Bundle.install)
                @Override
                public long id() {
                    return -1;
                }

                @Override
                public void finish(boolean commit) {
                }
            };
        }
        UObject<Object> reserved = file.objects.reserve(type);
        return new Reserved(reserved);
    }

    @Override
    public void destroy(Object uobject) throws Errno {
        Destroy.object(file, (UObject<?>) uobject, false);
    }

    @Override
    public boolean gone() {
        return file.device.isGone();
    }

    /** A handle taken before the handler runs; the handler {@link #fill}s it. */
    final class Reserved implements Pending {
        private final UObject<Object> handle;
        private UObject<?> filled;

        Reserved(UObject<Object> handle) {
            this.handle = handle;
        }

        @Override
        public long id() {
            return handle.handle();
        }

        <T> UObject<T> fill(T object, long userHandle) {
            UObject<T> u = file.objects.commit(handle, object, userHandle);
            filled = u;
            return u;
        }

        @Override
        public void finish(boolean commit) {
            if (filled == null) {
                file.objects.remove(handle);
            } else if (!commit) {
                try {
                    Destroy.object(file, filled, true); // uverbs_finalize_object(..., commit false): abort
                } catch (Errno e) {
                    file.objects.remove(filled);
                }
            }
        }
    }
}
