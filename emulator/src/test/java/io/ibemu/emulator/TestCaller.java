package io.ibemu.emulator;

import io.ibemu.devfs.device.Caller;
import io.ibemu.devfs.device.ReadRequest;
import io.ibemu.kernel.Errno;

/** The calling thread of a unit test, shared by the device packages' tests: never signalled, no memory to reach into. */
public final class TestCaller implements Caller {
    public static final TestCaller INSTANCE = new TestCaller();

    @Override
    public int tid() {
        return 1;
    }

    @Override
    public int uid() {
        return 0;
    }

    @Override
    public int gid() {
        return 0;
    }

    @Override
    public boolean interrupted() {
        return false;
    }

    @Override
    public void writeMemory(long address, byte[] data) throws Errno {
        throw Errno.of(Errno.EFAULT);
    }

    @Override
    public byte[] readMemory(long address, int length) throws Errno {
        throw Errno.of(Errno.EFAULT);
    }

    public static ReadRequest read(int count, boolean nonBlocking) {
        return read(count, nonBlocking, true);
    }

    /** A read whose buffer takes {@code length} bytes only if {@code writable}. */
    public static ReadRequest read(int count, boolean nonBlocking, boolean writable) {
        return new ReadRequest() {
            @Override
            public boolean takes(int length) {
                return writable;
            }

            @Override
            public Caller caller() {
                return INSTANCE;
            }

            @Override
            public int count() {
                return count;
            }

            @Override
            public boolean nonBlocking() {
                return nonBlocking;
            }
        };
    }
}
