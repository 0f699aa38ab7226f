package io.ibemu.emulator.uverbs;

import io.ibemu.kernel.Errno;
import io.ibemu.kernel.CStruct;
import io.ibemu.emulator.hca.PortAttributes;
import io.ibemu.emulator.uverbs.ioctl.Bundle;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.TreeSet;

import static io.ibemu.emulator.uverbs.ioctl.UapiIds.*;

/**
 * The methods of UVERBS_OBJECT_DEVICE and ASYNC_EVENT (uverbs_std_types_device.c,
 * uverbs_std_types_async_fd.c): the ioctl-only verbs, and INVOKE_WRITE, which runs any write
 * command's entry of {@link Commands}.
 */
final class DeviceMethods {

    /** IB_UVERBS_CORE_SUPPORT_OPTIONAL_MR_ACCESS: what GET_CONTEXT and QUERY_CONTEXT report. */
    private static final long CORE_SUPPORT = 1;
    /** struct ib_uverbs_query_port_resp_ex as 6.1 has it. */
    static final CStruct PORT_RESP_EX = CStruct.named("ib_uverbs_query_port_resp_ex")
            .struct("legacy_resp", Abi.QUERY_PORT_RESP).u16("port_cap_flags2").pad(1, 6).build();
    /** struct ib_uverbs_gid_entry. */
    static final CStruct GID_ENTRY = CStruct.named("ib_uverbs_gid_entry")
            .bytes("gid", 16).u32("gid_index").u32("port_num").u32("gid_type").u32("netdev_ifindex").build();
    private static final long U32_MAX = 0xffffffffL;

    private DeviceMethods() {
    }

    /**
     * UVERBS_METHOD_INVOKE_WRITE: the write command WRITE_CMD names, its ucore being CORE_IN and
     * CORE_OUT; ENOSPC when they are shorter than the command's req_size and resp_size.
     */
    static void invokeWrite(UverbsFile f, Bundle b) throws Errno {
        WriteCommand spec = Commands.lookup(b.constant(ATTR_WRITE_CMD, 0, U32_MAX));
        int inLength = Math.max(b.length(ATTR_CORE_IN), 0);
        int outLength = Math.max(b.length(ATTR_CORE_OUT), 0);
        if (inLength < spec.checkedRequestSize() || outLength < spec.checkedResponseSize()) {
            throw Errno.of(Errno.ENOSPC);
        }
        byte[] in = inLength == 0 ? Command.NOTHING : request(b, spec, inLength);
        f.run(Command.ioctl(f, spec, in, b, ATTR_CORE_OUT));
    }

    /**
     * CORE_IN as uverbs_request takes it: the command's struct (EFAULT when unreadable), then the
     * rest, which ib_is_buffer_cleared counts as not cleared when it cannot be read (EOPNOTSUPP,
     * as 6.1 gave in the VM): such a rest stands as non-zero bytes. Commands read in pieces
     * (uverbs_request_next_ptr) read it all, and fail with EFAULT where it is unreadable.
     */
    private static byte[] request(Bundle b, WriteCommand spec, int inLength) throws Errno {
        int struct = spec.request() == null ? inLength : Math.min(inLength, spec.request().size());
        try {
            return b.in(ATTR_CORE_IN);
        } catch (Errno e) {
            if (e.code() != Errno.EFAULT || spec.inPieces() || struct == inLength) {
                throw e;
            }
        }
        byte[] in = Arrays.copyOf(b.inPrefix(ATTR_CORE_IN, struct), inLength);
        Arrays.fill(in, struct, inLength, (byte) 0xff);
        return in;
    }

    /**
     * UVERBS_METHOD_GET_CONTEXT: the outputs first, then the context (EINVAL for a second one,
     * after NUM_COMP_VECTORS was written); its async event file comes by ASYNC_EVENT/ALLOC.
     */
    static void getContext(UverbsFile f, Bundle b) throws Errno {
        optional(b, ATTR_CONTEXT_NUM_COMP_VECTORS, le(f.device.hca().numCompVectors(), 4));
        optional(b, ATTR_CONTEXT_CORE_SUPPORT, le(CORE_SUPPORT, 8));
        f.setContext(new UverbsFile.Context(null, Owners.of(b.caller()).pid()));
    }

    /** UVERBS_METHOD_QUERY_CONTEXT: neither rxe nor rdmavt has query_ucontext. */
    static void queryContext(UverbsFile f, Bundle b) throws Errno {
        f.requireContext();
        throw Errno.of(Errno.EOPNOTSUPP);
    }

    /** UVERBS_METHOD_ASYNC_EVENT_ALLOC: a new async event file; the first becomes the default one. */
    static void allocAsyncEvents(UverbsFile f, Bundle b) throws Errno {
        UverbsFile.Context context = f.requireContext();
        EventFile file = EventFile.asyncEvents();
        int fd = b.install(ATTR_ASYNC_EVENT_ALLOC_FD_HANDLE, file, ContextCommands.EVENT_FILE_FLAGS);
        f.asyncFiles.put(fd, file);
        context.adoptAsyncEvents(file);
    }

    /** UVERBS_METHOD_QUERY_PORT: the legacy response and port_cap_flags2. */
    static void queryPort(UverbsFile f, Bundle b) throws Errno {
        f.requireContext();
        PortAttributes a = f.device.hca().port((int) b.constant(ATTR_QUERY_PORT_PORT_NUM, 0, 0xff));
        byte[] resp = new byte[PORT_RESP_EX.size()];
        ContextCommands.fillPort(a, resp);
        PORT_RESP_EX.field("port_cap_flags2").put(resp, a.portCapFlags2());
        b.copyToStructOrZero(ATTR_QUERY_PORT_RESP, resp);
    }

    /**
     * UVERBS_METHOD_INFO_HANDLES: the handles of one object type, in the order they were made;
     * EINVAL without a list of whole u32s, ENOENT for a type the device lacks.
     */
    static void infoHandles(UverbsFile f, Bundle b) throws Errno {
        int outLength = b.length(ATTR_INFO_HANDLES_LIST);
        if (outLength <= 0 || outLength % 4 != 0) {
            throw Errno.of(Errno.EINVAL);
        }
        int objectId = (int) b.constant(ATTR_INFO_OBJECT_ID, 0, 0xffff);
        if (f.device.uapi() == null || f.device.uapi().object(objectId) == null) {
            throw Errno.of(Errno.ENOENT);
        }
        List<Integer> handles = f.handles(objectId);
        int total = Math.min(handles.size(), outLength / 4);
        ByteBuffer list = ByteBuffer.allocate(total * 4).order(ByteOrder.LITTLE_ENDIAN);
        for (int i = 0; i < total; i++) {
            list.putInt(handles.get(i));
        }
        b.copyTo(ATTR_INFO_HANDLES_LIST, list.array());
        b.copyTo(ATTR_INFO_TOTAL_HANDLES, le(total, 8));
    }

    /**
     * UVERBS_METHOD_QUERY_GID_TABLE: every valid entry of every port (rdma_query_gid_table), each
     * in the caller's entry size; EINVAL when they do not all fit.
     */
    static void queryGidTable(UverbsFile f, Bundle b) throws Errno {
        b.flags32(ATTR_GID_TABLE_FLAGS, 0);
        long entrySize = b.constant(ATTR_GID_TABLE_ENTRY_SIZE, 0, Long.MAX_VALUE);
        if (entrySize == 0) {
            throw Errno.of(Errno.EINVAL);
        }
        int length = b.length(ATTR_GID_TABLE_RESP_ENTRIES);
        if (length % entrySize != 0 || length / entrySize == 0) {
            throw Errno.of(Errno.EINVAL); // uverbs_attr_ptr_get_array_size: none, or not whole entries
        }
        long max = length / entrySize;
        f.requireContext();
        List<byte[]> entries = new ArrayList<>();
        int ports = f.device.hca().local().node().portCount();
        for (int port = 1; port <= ports; port++) {
            byte[][] gids = f.device.hca().port(port).gids();
            for (int i = 0; i < gids.length; i++) {
                if (!valid(gids[i])) {
                    continue;
                }
                if (entries.size() >= max) {
                    throw Errno.of(Errno.EINVAL);
                }
                entries.add(gidEntry(gids[i], i, port));
            }
        }
        int copy = (int) Math.min(entrySize, GID_ENTRY.size());
        byte[] out = new byte[(int) (entries.size() * entrySize)];
        for (int i = 0; i < entries.size(); i++) {
            System.arraycopy(entries.get(i), 0, out, (int) (i * entrySize), copy);
        }
        if (entrySize == GID_ENTRY.size()) {
            b.copyTo(ATTR_GID_TABLE_RESP_ENTRIES, out);
        } else {
            b.write(b.address(ATTR_GID_TABLE_RESP_ENTRIES), out); // copy_gid_entries_to_user, entry by entry
            b.outputWritten(ATTR_GID_TABLE_RESP_ENTRIES);
        }
        b.copyTo(ATTR_GID_TABLE_RESP_NUM_ENTRIES, le(entries.size(), 8));
    }

    /**
     * UVERBS_METHOD_QUERY_GID_ENTRY: one entry (rdma_get_gid_attr): EINVAL for a port or index
     * outside the device, ENODATA for an empty slot.
     */
    static void queryGidEntry(UverbsFile f, Bundle b) throws Errno {
        b.flags32(ATTR_GID_ENTRY_FLAGS, 0);
        long port = b.constant(ATTR_GID_ENTRY_PORT, 0, U32_MAX);
        long index = b.constant(ATTR_GID_ENTRY_GID_INDEX, 0, U32_MAX);
        f.requireContext();
        if (port < 1 || port > f.device.hca().local().node().portCount()) {
            throw Errno.of(Errno.EINVAL);
        }
        byte[][] gids = f.device.hca().port((int) port).gids();
        if (index >= gids.length) {
            throw Errno.of(Errno.EINVAL);
        }
        if (!valid(gids[(int) index])) {
            throw Errno.of(Errno.ENODATA);
        }
        b.copyToStructOrZero(ATTR_GID_ENTRY_RESP_ENTRY, gidEntry(gids[(int) index], (int) index, (int) port));
    }

    /** is_gid_entry_valid: the cache never holds an all-zero GID (add_modify_gid). */
    private static boolean valid(byte[] gid) {
        for (byte x : gid) {
            if (x != 0) {
                return true;
            }
        }
        return false;
    }

    /** An InfiniBand port's entry: gid_type IB_UVERBS_GID_TYPE_IB (0), no netdev. */
    private static byte[] gidEntry(byte[] gid, int index, int port) {
        byte[] e = new byte[GID_ENTRY.size()];
        GID_ENTRY.field("gid").putBytes(e, gid);
        GID_ENTRY.field("gid_index").put(e, index);
        GID_ENTRY.field("port_num").put(e, port);
        return e;
    }

    /** An optional output: IS_UVERBS_COPY_ERR, its absence is no error. */
    static void optional(Bundle b, int id, byte[] value) throws Errno {
        try {
            b.copyTo(id, value);
        } catch (Errno e) {
            if (Bundle.isCopyError(e)) {
                throw e;
            }
        }
    }

    static byte[] le(long v, int size) {
        return java.util.Arrays.copyOf(ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN).putLong(v).array(), size);
    }
}
