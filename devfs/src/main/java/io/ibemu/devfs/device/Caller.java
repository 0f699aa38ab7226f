package io.ibemu.devfs.device;

import io.ibemu.kernel.Errno;
import io.ibemu.kernel.ProcessMemory;

/** The thread that made the current request, as FUSE tells it. */
public interface Caller {

    /** The calling thread's id (FUSE reports the kernel task id, a tid). */
    int tid();

    int uid();

    int gid();

    /** True once the caller got a signal while this request was pending (libfuse's fuse_interrupted). */
    boolean interrupted();

    /**
     * Copies {@code data} into the caller's memory at {@code address} (process_vm_writev).
     * For replies the kernel writes into user memory and still fails.
     */
    default void writeMemory(long address, byte[] data) throws Errno {
        ProcessMemory.write(tid(), address, data, 0, data.length);
    }

    /** Reads {@code length} bytes of the caller's memory at {@code address} (process_vm_readv). */
    default byte[] readMemory(long address, int length) throws Errno {
        return ProcessMemory.read(tid(), address, length);
    }

    /**
     * Copies each {@code data[i]} to {@code addresses[i]} in order, in one process_vm_writev, and
     * stops at the first range it cannot write whole (as copy_to_user()s one after another).
     *
     * @return how many leading ranges were written whole
     */
    default int writeMemory(long[] addresses, byte[][] data) {
        return ProcessMemory.writeAll(tid(), addresses, data);
    }

    /**
     * Several ranges of the caller's memory in one process_vm_readv; null unless all were read
     * whole (a read ahead: the caller reads them one by one where a failure must show).
     */
    default byte[][] readMemory(long[] addresses, int[] lengths) {
        return ProcessMemory.readAll(tid(), addresses, lengths);
    }

    /**
     * Makes {@code file} a new open file in the caller's descriptor table, as the kernel's
     * {@code get_unused_fd_flags} + {@code fd_install} do for uverbs' async and completion-channel
     * fds: the lowest free number, close-on-exec when {@code openFlags} has O_CLOEXEC; the
     * access mode of {@code openFlags} and O_NONBLOCK become the file's. read/poll/release of
     * that file then reach {@code file} as for any device file. Only a caller under the
     * launcher's supervisor can get one: others throw {@link Errno#EOPNOTSUPP}.
     *
     * @return the new descriptor number in the caller
     */
    default int installFile(DeviceFile file, int openFlags) throws Errno {
        throw Errno.of(Errno.EOPNOTSUPP);
    }

    /**
     * The device file behind the caller's descriptor {@code fd} (fdget for a driver that takes
     * another open file of its own by descriptor, as ucma's MIGRATE_ID does): null when the
     * descriptor is not one of this daemon's device files. Only a caller under the launcher's
     * supervisor can name one: others throw {@link Errno#EOPNOTSUPP}.
     */
    default DeviceFile fileOf(int fd) throws Errno {
        throw Errno.of(Errno.EOPNOTSUPP);
    }

    /**
     * The file's status flags now (f_flags), for a call that blocks unless O_NONBLOCK is set:
     * {@code openFlags} are those the call was handed (the open's), which an fcntl(F_SETFL) since
     * may have changed. Where the caller's descriptor is not known, {@code openFlags}.
     */
    default int fileFlags(int openFlags) {
        return openFlags;
    }
}
