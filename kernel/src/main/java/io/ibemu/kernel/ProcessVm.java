package io.ibemu.kernel;

import com.kenai.jffi.CallContext;
import com.kenai.jffi.CallingConvention;
import com.kenai.jffi.Invoker;
import com.kenai.jffi.LastError;
import com.kenai.jffi.Library;
import com.kenai.jffi.Type;

/**
 * process_vm_readv and process_vm_writev on the hot paths (every supervised write, every DMA),
 * called through jffi's six-argument invoker. jnr-ffi takes its slow, allocating path for the
 * seven-argument {@code syscall()} (about 0.7 µs more a call), and its six-long fast path hands
 * libc's wrappers a bad argument (EINVAL); jffi's typed call context does neither.
 * Addresses are native addresses in longs; a result below zero leaves the errno in {@link #errno()}.
 */
public final class ProcessVm {

    private static final Invoker INVOKER = Invoker.getInstance();
    /** ssize_t f(pid_t, const struct iovec *, unsigned long, const struct iovec *, unsigned long, unsigned long). */
    private static final CallContext CONTEXT = CallContext.getCallContext(Type.SINT64,
            new Type[] {Type.SINT32, Type.POINTER, Type.UINT64, Type.POINTER, Type.UINT64, Type.UINT64},
            CallingConvention.DEFAULT, true);
    private static final long READV = symbol("process_vm_readv");
    private static final long WRITEV = symbol("process_vm_writev");

    private ProcessVm() {
    }

    private static long symbol(String name) {
        long address = Library.getDefault().getSymbolAddress(name);
        if (address == 0) {
            throw new UnsatisfiedLinkError(name + " not found in libc");
        }
        return address;
    }

    /** process_vm_readv(pid, local, localCount, remote, remoteCount, 0): bytes read, or -1. */
    public static long readv(int pid, long localIov, long localCount, long remoteIov, long remoteCount) {
        return INVOKER.invokeN6(CONTEXT, READV, pid, localIov, localCount, remoteIov, remoteCount, 0);
    }

    /** process_vm_writev(pid, local, localCount, remote, remoteCount, 0): bytes written, or -1. */
    public static long writev(int pid, long localIov, long localCount, long remoteIov, long remoteCount) {
        return INVOKER.invokeN6(CONTEXT, WRITEV, pid, localIov, localCount, remoteIov, remoteCount, 0);
    }

    /** The errno the last call on this thread failed with. */
    public static int errno() {
        return LastError.getInstance().get();
    }
}
