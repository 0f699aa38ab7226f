package io.ibemu.emulator.uverbs.ioctl;

import io.ibemu.devfs.device.Caller;
import io.ibemu.devfs.device.DeviceFile;
import io.ibemu.kernel.Errno;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;

/**
 * {@code struct uverbs_attr_bundle}: the attributes a method got, checked against its spec, and
 * the accessors handlers read and answer through (uverbs_get_const, uverbs_get_flags64,
 * uverbs_copy_to, ...). Outputs go straight into the caller's memory, and each one written is
 * flagged UVERBS_ATTR_F_VALID_OUTPUT in the caller's attribute array.
 */
public final class Bundle {

    /** One attribute the method declares and the caller gave. */
    record Present(AttrSpec spec, UserAttr user, Object object, UObjects.Pending pending) {
    }

    private final Caller caller;
    private final long userAttrs;
    private final MethodSpec.Shape shape;
    /** The attributes given, by their slot in the method ({@link MethodSpec.Shape#slot}). */
    private final Present[] present;
    /**
     * The caller's attribute array as read, with the flags and ids the method writes back: those
     * put_user()s go out together at the end ({@link #flush}), one write instead of one each.
     */
    private byte[] array = new byte[0];
    private boolean dirty;
    /** Inputs read ahead ({@link #readAhead}): their addresses and bytes. */
    private long[] aheadAt = new long[0];
    private byte[][] ahead = new byte[0][];

    Bundle(Caller caller, long userAttrs, MethodSpec.Shape shape) {
        this.caller = caller;
        this.userAttrs = userAttrs;
        this.shape = shape;
        this.present = new Present[shape.specs().length];
    }

    /** The attribute a given {@code id} is, once checked (uverbs_set_attr's last step). */
    void put(Present p) {
        present[shape.slot(p.spec().id())] = p;
    }

    /** The attribute given for {@code id}, or null. */
    Present present(int id) {
        int slot = shape.slot(id);
        return slot < 0 ? null : present[slot];
    }

    /** Every attribute given, in the method's order. */
    Present[] given() {
        return present;
    }

    public Caller caller() {
        return caller;
    }

    /** Where the caller's attribute array starts (after the header). */
    long userAttrs() {
        return userAttrs;
    }

    /** uverbs_attr_is_valid. */
    public boolean has(int id) {
        return present(id) != null;
    }

    private Present get(int id) throws Errno {
        Present p = present(id);
        if (p == null) {
            throw Errno.of(Errno.ENOENT); // uverbs_attr_get of an absent attribute
        }
        return p;
    }

    /** uverbs_attr_get_len, or -1 when absent. */
    public int length(int id) {
        Present p = present(id);
        return p == null ? -1 : p.user().len();
    }

    /** The caller's address an input or output pointer names. */
    public long address(int id) throws Errno {
        return get(id).user().data();
    }

    /**
     * _uverbs_get_const: the attribute's value, EINVAL outside {@code [min, max]} (the bounds of
     * the handler's C type); ENOENT when absent.
     */
    public long constant(int id, long min, long max) throws Errno {
        long v = get(id).user().data();
        if (v < min || (v > 0 && Long.compareUnsigned(v, max) > 0)) {
            throw Errno.of(Errno.EINVAL);
        }
        return v;
    }

    /** uverbs_get_const_default: {@code otherwise} when absent. */
    public long constant(int id, long min, long max, long otherwise) throws Errno {
        return has(id) ? constant(id, min, max) : otherwise;
    }

    /** uverbs_get_flags64: 0 when absent; a u32 or u64; EINVAL for bits outside {@code allowed}. */
    public long flags64(int id, long allowed) throws Errno {
        Present p = present(id);
        if (p == null) {
            return 0;
        }
        long flags = switch (p.user().len()) {
            case 8 -> p.user().data();
            case 4 -> p.user().data() & 0xffffffffL;
            default -> throw Errno.of(Errno.EINVAL);
        };
        if ((flags & ~allowed) != 0) {
            throw Errno.of(Errno.EINVAL);
        }
        return flags;
    }

    /** uverbs_get_flags32. */
    public int flags32(int id, long allowed) throws Errno {
        long flags = flags64(id, allowed);
        if (Long.compareUnsigned(flags, 0xffffffffL) > 0) {
            throw Errno.of(Errno.EINVAL);
        }
        return (int) flags;
    }

    /** uverbs_copy_from: an input's bytes, from the attribute itself or the caller's memory (EFAULT). */
    public byte[] in(int id) throws Errno {
        UserAttr u = get(id).user();
        if (u.inline()) {
            return Arrays.copyOf(ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN).putLong(u.data()).array(),
                    u.len());
        }
        return read(u.data(), u.len());
    }

    /** The first {@code length} bytes of an input (a handler's copy_from_user of its struct only). */
    public byte[] inPrefix(int id, int length) throws Errno {
        UserAttr u = get(id).user();
        if (u.inline()) {
            return Arrays.copyOf(in(id), length);
        }
        return read(u.data(), Math.min(length, u.len()));
    }

    /** uverbs_copy_from of a PTR_IN of up to 8 bytes (inline): its value, unsigned. */
    public long value(int id) throws Errno {
        UserAttr u = get(id).user();
        return u.len() >= 8 ? u.data() : u.data() & ((1L << (8 * u.len())) - 1);
    }

    /** The object an IDR or FD attribute named (READ, WRITE or DESTROY access). */
    public Object object(int id) throws Errno {
        return get(id).object();
    }

    /** The pending new object of an IDR or FD attribute with NEW access. */
    public UObjects.Pending created(int id) throws Errno {
        return get(id).pending();
    }

    /**
     * uverbs_copy_to: the first min(len, data.length) bytes into the caller's buffer, then the
     * attribute flagged VALID_OUTPUT; ENOENT when absent, EFAULT when the memory is not writable.
     */
    public void copyTo(int id, byte[] data) throws Errno {
        UserAttr u = get(id).user();
        int n = Math.min(u.len(), data.length);
        if (n > 0) {
            writeOutput(id, u.data(), data.length == n ? data : Arrays.copyOf(data, n));
        } else {
            setOutput(u);
        }
    }

    /**
     * The handler's copy_to_user of an output at {@code address} and uverbs_output_written's
     * put_user of the flag (with any ids not written yet) in one process_vm_writev, in that order:
     * a buffer that cannot be written leaves the flag unset, as in the kernel.
     */
    public void writeOutput(int id, long address, byte[] data) throws Errno {
        UserAttr u = get(id).user();
        int at = u.index() * UserAttr.SIZE + UserAttr.FLAGS_OFFSET;
        byte before = array[at];
        array[at] |= (byte) UserAttr.VALID_OUTPUT; // flagged in place, taken back if nothing was written
        int whole = caller.writeMemory(new long[] {address, userAttrs}, new byte[][] {data, array});
        if (whole == 0) {
            array[at] = before;
            throw Errno.of(Errno.EFAULT);
        }
        forget(address, data.length);
        if (whole == 1) {
            dirty = true;
            throw Errno.of(Errno.EFAULT); // the flag's put_user failed
        }
        dirty = false;
    }

    /** uverbs_copy_to_struct_or_zero: a longer buffer is cleared past the struct first. */
    public void copyToStructOrZero(int id, byte[] data) throws Errno {
        UserAttr u = get(id).user();
        // the clear_user of the tail and the copy in one write: one process_vm_writev, not two
        copyTo(id, data.length < u.len() ? Arrays.copyOf(data, u.len()) : data);
    }

    /** uverbs_output_written: the handler wrote the buffer itself ({@link #write}). */
    public void outputWritten(int id) throws Errno {
        setOutput(get(id).user());
    }

    /** IS_UVERBS_COPY_ERR: an optional output the caller did not ask for is not an error. */
    public static boolean isCopyError(Errno e) {
        return e.code() != Errno.ENOENT;
    }

    /**
     * An FD attribute with NEW access: {@code file} becomes a descriptor of the caller
     * (get_unused_fd_flags + fd_install), whose number is written back into the attribute. The
     * slot is tried first, so a descriptor is never installed where its number cannot be told.
     */
    public int install(int id, DeviceFile file, int openFlags) throws Errno {
        UserAttr u = get(id).user();
        long slot = userAttrs + (long) u.index() * UserAttr.SIZE + UserAttr.DATA_OFFSET;
        write(slot, read(slot, 8));
        int fd = caller.installFile(file, openFlags);
        writeId(u, fd); // with the flags at the end: the descriptor exists, its slot was writable
        return fd;
    }

    public void write(long address, byte[] data) throws Errno {
        forget(address, data.length);
        try {
            caller.writeMemory(address, data);
        } catch (Errno e) {
            throw Errno.of(Errno.EFAULT);
        }
    }

    /**
     * Reads the given inputs in one process_vm_readv, for {@link #read} to serve later. Nothing
     * is kept unless all were readable: each is then read where the kernel reads it, and an
     * unreadable one fails there (EFAULT after whatever errno comes first).
     */
    void readAhead(long[] addresses, int[] lengths) {
        byte[][] got = caller.readMemory(addresses, lengths);
        if (got != null) {
            aheadAt = addresses;
            ahead = got;
        }
    }

    /** Inputs read ahead that a write of ours overlaps are read again when asked for. */
    private void forget(long address, int length) {
        for (int i = 0; i < ahead.length; i++) {
            if (address < aheadAt[i] + ahead[i].length && aheadAt[i] < address + length) {
                ahead[i] = new byte[0];
            }
        }
    }

    byte[] read(long address, int length) throws Errno {
        for (int i = 0; i < ahead.length; i++) {
            long from = address - aheadAt[i];
            if (from >= 0 && from + length <= ahead[i].length) {
                return Arrays.copyOfRange(ahead[i], (int) from, (int) from + length);
            }
        }
        try {
            return caller.readMemory(address, length);
        } catch (Errno e) {
            throw Errno.of(Errno.EFAULT);
        }
    }

    /** The attribute array as the caller wrote it. */
    void attributes(byte[] array) {
        this.array = array;
    }

    /** uverbs_set_output: the attribute's flags with VALID_OUTPUT added. */
    void setOutput(UserAttr u) {
        int at = u.index() * UserAttr.SIZE + UserAttr.FLAGS_OFFSET;
        array[at] |= (byte) UserAttr.VALID_OUTPUT;
        dirty = true;
    }

    /** A new object's id into the attribute's data. */
    void writeId(UserAttr u, long id) {
        System.arraycopy(le64(id), 0, array, u.index() * UserAttr.SIZE + UserAttr.DATA_OFFSET, 8);
        dirty = true;
    }

    /** The put_user()s of the flags and ids, into the caller's array; EFAULT when it is not writable. */
    void flush() throws Errno {
        if (dirty) {
            dirty = false;
            write(userAttrs, array);
        }
    }

    static byte[] le64(long v) {
        return ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN).putLong(v).array();
    }
}
