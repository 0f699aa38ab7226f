package io.ibemu.devfs.supervise;

import io.ibemu.kernel.Errno;
import io.ibemu.kernel.ProcessMemory;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * The registers a signal handler returns through: x86-64's {@code struct rt_sigframe} as
 * {@code rt_sigreturn} finds it, {@code struct ucontext} at the caller's stack pointer
 * (arch/x86/kernel/signal_64.c: the frame starts one word below, at the popped return address).
 *
 * <p>Why the supervisor reads it: a supervised call that a signal interrupts before the
 * daemon has received its notification ends with {@code -ERESTARTSYS}
 * (seccomp_do_user_notification), which a handler without {@code SA_RESTART} turns into
 * {@code EINTR} — an errno the kernel's own write, fstat or open of these files never gives.
 * The call never ran, so the supervisor restarts it the way handle_signal() would have with
 * {@code SA_RESTART}: the saved {@code rax} becomes the call's number again and {@code rip}
 * steps back over the two-byte {@code syscall} instruction.
 */
record SignalFrame(int tid, long context, long[] registers) {

    /** sizeof(uc_flags) + sizeof(uc_link) + sizeof(stack_t): where uc_mcontext starts. */
    private static final int MCONTEXT = 40;
    /** struct sigcontext_64's general registers, in order, up to eflags. */
    private static final int R10 = 2;
    private static final int RDI = 8;
    private static final int RSI = 9;
    private static final int RDX = 12;
    private static final int RAX = 13;
    private static final int RCX = 14;
    private static final int RIP = 16;
    private static final int REGISTERS = 18;
    /** Where in the scratch memory the /proc line goes, and its longest length. */
    private static final int PROC_LINE = 256;
    private static final com.kenai.jffi.MemoryIO MEMORY = Syscalls.MEMORY;
    private static final long EINTR = -Errno.EINTR;
    /** {@code syscall}. */
    private static final int SYSCALL_0 = 0x0f;
    private static final int SYSCALL_1 = 0x05;
    /** {@code mov $imm32, %eax} and {@code mov $imm32, %rax}: how glibc's wrappers load the number. */
    private static final int MOV_EAX = 0xb8;
    private static final int[] MOV_RAX = {0x48, 0xc7, 0xc0};

    /**
     * The frame of the handler {@code tid} is returning from (it is stopped in rt_sigreturn), or
     * null. {@code scratch}: 512 bytes of the calling thread's native memory.
     */
    static SignalFrame of(int tid, long scratch) {
        long sp = stackPointer(tid, scratch);
        if (sp == 0) {
            return null;
        }
        try {
            long context = sp + MCONTEXT;
            ByteBuffer raw = ByteBuffer.wrap(ProcessMemory.read(tid, context, REGISTERS * 8))
                    .order(ByteOrder.LITTLE_ENDIAN);
            long[] registers = new long[REGISTERS];
            for (int i = 0; i < REGISTERS; i++) {
                registers[i] = raw.getLong();
            }
            return new SignalFrame(tid, context, registers);
        } catch (Errno e) {
            return null;
        }
    }

    /**
     * /proc/TID/syscall of a task blocked in a call, "NR ARG0..ARG5 SP PC": its eighth field.
     * Read with plain open/read into native memory: this runs for every handled signal.
     */
    private static long stackPointer(int tid, long scratch) {
        Syscalls.putString(scratch, "/proc/" + tid + "/syscall");
        int fd = Syscalls.LIBC.open(scratch, Syscalls.O_RDONLY | Syscalls.O_CLOEXEC);
        if (fd < 0) {
            return 0;
        }
        long length;
        try {
            length = Syscalls.LIBC.read(fd, scratch + PROC_LINE, PROC_LINE);
        } finally {
            Syscalls.LIBC.close(fd);
        }
        int field = 0;
        long value = 0;
        for (long i = 0; i < length; i++) {
            int c = MEMORY.getByte(scratch + PROC_LINE + i) & 0xff;
            if (c == ' ' || c == '\n') {
                if (field == 7) {
                    return value;
                }
                field++;
                value = 0;
            } else if (field == 7 && c != 'x') {
                value = (value << 4) | Character.digit(c, 16);
            }
        }
        return 0;
    }

    /**
     * The number of the call that ended with EINTR just before the handler ran, or -1: rax holds
     * -EINTR, rcx the address after a {@code syscall} instruction (where the CPU put it on entry),
     * and the instruction before that loads a constant number (glibc's wrappers; a number moved
     * from another register cannot be recovered, and such a call keeps its EINTR).
     */
    int interruptedCall() {
        long rip = registers[RIP];
        if (registers[RAX] != EINTR || registers[RCX] != rip) {
            return -1;
        }
        byte[] code;
        try {
            code = ProcessMemory.read(tid, rip - 9, 9);
        } catch (Errno e) {
            try {
                code = ByteBuffer.allocate(9).put(2, ProcessMemory.read(tid, rip - 7, 7)).array();
            } catch (Errno again) {
                return -1;
            }
        }
        if ((code[7] & 0xff) != SYSCALL_0 || (code[8] & 0xff) != SYSCALL_1) {
            return -1;
        }
        boolean movEax = (code[2] & 0xff) == MOV_EAX;
        boolean movRax = (code[0] & 0xff) == MOV_RAX[0] && (code[1] & 0xff) == MOV_RAX[1] && (code[2] & 0xff) == MOV_RAX[2];
        if (!movEax && !movRax) {
            return -1;
        }
        return ByteBuffer.wrap(code, 3, 4).order(ByteOrder.LITTLE_ENDIAN).getInt();
    }

    /** The interrupted call's first four arguments (rdi, rsi, rdx, r10: the syscall preserves them). */
    long[] arguments() {
        return new long[] {registers[RDI], registers[RSI], registers[RDX], registers[R10]};
    }

    /** Makes the handler return into the call again, with {@code nr} in rax: handle_signal's restart. */
    void restart(int nr) throws Errno {
        byte[] number = ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN).putLong(nr).array();
        byte[] rip = ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN).putLong(registers[RIP] - 2).array();
        ProcessMemory.write(tid, context + 8L * RAX, number, 0, 8);
        ProcessMemory.write(tid, context + 8L * RIP, rip, 0, 8);
    }
}
