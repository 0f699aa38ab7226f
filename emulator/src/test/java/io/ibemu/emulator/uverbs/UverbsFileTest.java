package io.ibemu.emulator.uverbs;

import io.ibemu.devfs.device.Caller;
import io.ibemu.devfs.device.DeviceFile;
import io.ibemu.emulator.device.HcaIdentity;
import io.ibemu.emulator.device.LocalHca;
import io.ibemu.emulator.fabric.Fabric;
import io.ibemu.emulator.fabric.Node;
import io.ibemu.emulator.hca.DataLink;
import io.ibemu.emulator.hca.Hca;
import io.ibemu.emulator.hca.HostMemory;
import io.ibemu.emulator.topology.DefaultFabric;
import io.ibemu.emulator.topology.NodeType;
import io.ibemu.kernel.Errno;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The write() path of a uverbs file against the HCA model, with a caller whose memory is a few
 * Java arrays: header rules, the per-file handle table, EBUSY order and close-time cleanup.
 * The same rules run against the real device, through libibverbs' own path, in the
 * integration tests' raw-ABI probes.
 */
class UverbsFileTest {
    private static final long RESP = 0x10000;

    private DataLink link;
    private Hca hca;
    private UverbsDevice device;
    private FakeCaller caller;

    @BeforeEach
    void setUp() {
        Fabric fabric = Fabric.of(DefaultFabric.topology());
        Node node = fabric.nodes().stream().filter(n -> n.type() == NodeType.CA).findFirst().orElseThrow();
        link = new DataLink(fabric);
        hca = new Hca(new LocalHca(0, node, HcaIdentity.defaults(0), "0000:00:10.0", 0), fabric, link);
        device = new UverbsDevice(hca, 0, owner -> new ArrayMemory());
        caller = new FakeCaller();
        caller.map(RESP, 4096);
    }

    @AfterEach
    void tearDown() {
        hca.close();
        link.close();
    }

    @Test
    void headerRulesComeBeforeAnything() throws Errno {
        DeviceFile f = device.open(caller, 2);
        assertErrno(Errno.EINVAL, () -> write(f, new byte[4]));
        assertErrno(Errno.EINVAL, () -> write(f, cmd(0, 3, 0, new long[] {RESP}))); // in_words says 12 bytes, 16 written
        assertErrno(Errno.EINVAL, () -> write(f, cmd(0x40000000, 4, 2, new long[] {RESP})));
        assertErrno(Errno.EOPNOTSUPP, () -> write(f, cmd(50, 4, 0, new long[] {RESP})));
        assertErrno(Errno.EOPNOTSUPP, () -> write(f, cmd(6, 4, 0, new long[] {RESP}))); // MODIFY_AH
        assertErrno(Errno.EINVAL, () -> write(f, cmd(3, 4, 1, new long[] {RESP}))); // ALLOC_PD before GET_CONTEXT
        assertErrno(Errno.ENOSPC, () -> write(f, cmd(3, 3, 1, new long[] {}, 4))); // request shorter than ib_uverbs_alloc_pd
    }

    @Test
    void bytesPastTheRequestStructMustBeZeroBeforeAnyLookup() throws Errno {
        DeviceFile f = device.open(caller, 2);
        // DEALLOC_PD (a 4-byte struct) of unknown handle 9, then a nonzero word past the struct
        assertErrno(Errno.ENOENT, () -> write(f, cmd(4, 4, 0, new long[] {9})));
        assertErrno(Errno.EOPNOTSUPP, () -> write(f, cmd(4, 4, 0, new long[] {9 | (1L << 32)})));
        // CREATE_COMP_CHANNEL without a context: the tail is checked before the context
        assertErrno(Errno.EINVAL, () -> write(f, cmd(17, 6, 1, new long[] {RESP, 0})));
        assertErrno(Errno.EOPNOTSUPP, () -> write(f, cmd(17, 6, 1, new long[] {RESP, 1})));
        // ALLOC_PD takes driver data (udata) after its struct: no tail to check
        DeviceFile g = context();
        write(g, cmd(3, 6, 1, new long[] {RESP, 1}));
    }

    @Test
    void getContextInstallsTheAsyncFileOnceAndAnswersItsNumber() throws Errno {
        DeviceFile f = device.open(caller, 2);
        write(f, cmd(0, 4, 2, new long[] {RESP}));
        assertEquals(7, caller.u32(RESP));
        assertEquals(1, caller.u32(RESP + 4));
        assertEquals(1, caller.installed.size());
        assertErrno(Errno.EINVAL, () -> write(f, cmd(0, 4, 2, new long[] {RESP})));
        // the response is written before ib_init_ucontext refuses the second context
        assertErrno(Errno.EFAULT, () -> write(f, cmd(0, 4, 2, new long[] {0x99990000L})));
    }

    @Test
    void aBadResponseAddressLeavesNoDescriptorBehind() throws Errno {
        DeviceFile f = device.open(caller, 2);
        assertErrno(Errno.EFAULT, () -> write(f, cmd(0, 4, 2, new long[] {0x99990000L})));
        assertEquals(0, caller.installed.size());
    }

    @Test
    void handlesAreLowestFreeAcrossTypesAndLookupsFailAsTheKernelSays() throws Errno {
        DeviceFile f = context();
        assertEquals(0, allocPd(f));
        assertEquals(1, allocPd(f));
        int cq = createCq(f);
        assertEquals(2, cq);
        dealloc(f, 0);
        assertEquals(0, allocPd(f));
        assertErrno(Errno.ENOENT, () -> dealloc(f, 99));
        assertErrno(Errno.EINVAL, () -> dealloc(f, cq)); // a CQ's handle given as a PD's
        DeviceFile other = context();
        assertErrno(Errno.ENOENT, () -> dealloc(other, 1)); // another file's handle
    }

    @Test
    void aDomainWithARegionIsBusyAndCloseReleasesEverything() throws Errno {
        DeviceFile f = context();
        int pd = allocPd(f);
        caller.map(0x200000, 8192);
        // REG_MR: response, start, length, hca_va, pd_handle | access
        write(f, cmd(9, 12, 3, new long[] {RESP, 0x200000, 8192, 0x200000, pd | (1L << 32)}));
        assertErrno(Errno.EBUSY, () -> dealloc(f, pd));
        assertEquals(1, device.objectCounts().get("mr"));
        f.release();
        assertEquals(Map.of("files", 0, "pd", 0, "mr", 0, "mw", 0, "cq", 0, "qp", 0, "srq", 0, "ah", 0, "xrcd", 0),
                Map.copyOf(device.objectCounts()));
    }

    @Test
    void disassociateDestroysEveryObjectAtOnceAndLeavesOnlyClose() throws Errno {
        DeviceFile f = context();
        int pd = allocPd(f);
        caller.map(0x200000, 8192);
        write(f, cmd(9, 12, 3, new long[] {RESP, 0x200000, 8192, 0x200000, pd | (1L << 32)}));
        createCq(f);
        DeviceFile idle = device.open(caller, 2); // no context yet
        assertEquals(1, device.objectCounts().get("mr"));
        assertEquals(1, hca.objectCounts().get("mr"));

        // ib_uverbs_free_hw_resources: uverbs_destroy_ufile_hw(RDMA_REMOVE_DRIVER_REMOVE) for each file
        device.disassociate();
        assertEquals(Map.of("files", 2, "pd", 0, "mr", 0, "mw", 0, "cq", 0, "qp", 0, "srq", 0, "ah", 0, "xrcd", 0),
                Map.copyOf(device.objectCounts()), "the files stay open, their objects are gone");
        assertTrue(hca.objectCounts().values().stream().allMatch(n -> n == 0), hca.objectCounts().toString());
        assertErrno(Errno.EIO, () -> allocPd(f));
        assertErrno(Errno.EIO, () -> dealloc(f, pd));
        assertErrno(Errno.EIO, () -> write(idle, cmd(0, 4, 2, new long[] {RESP})));
        assertErrno(Errno.EIO, () -> device.open(caller, 2));
        f.release();
        idle.release();
        assertEquals(0, device.objectCounts().get("files"));
    }

    @Test
    void postArraysPastTheWriteAreNoSpaceEvenWhenTheirSizeOverflows() throws Errno {
        DeviceFile f = context();
        // POST_SEND: response, qp_handle 0 | wr_count 2^32-1, sge_count 0 | wqe_size 2^32-1
        assertErrno(Errno.ENOSPC, () -> write(f, cmd(28, 8, 1, new long[] {RESP, 0xffffffffL << 32,
            0xffffffffL << 32})));
        // POST_RECV with one 16-byte record announced and none written
        assertErrno(Errno.ENOSPC, () -> write(f, cmd(29, 8, 1, new long[] {RESP, 1L << 32, 16L << 32})));
    }

    @Test
    void queryPortOutsideTheDeviceIsInvalid() throws Errno {
        DeviceFile f = context();
        assertErrno(Errno.EINVAL, () -> write(f, cmd(2, 6, 10, new long[] {RESP, 0})));
        write(f, cmd(2, 6, 10, new long[] {RESP, 1}));
        assertEquals(hca.port(1).gidTblLen(), caller.u32(RESP + 16), "gid_tbl_len");
        assertEquals(hca.port(1).state(), caller.readMemory(RESP + 26, 1)[0], "state");
    }

    // ---- helpers: commands as a program would write them ----

    private DeviceFile context() throws Errno {
        DeviceFile f = device.open(caller, 2);
        write(f, cmd(0, 4, 2, new long[] {RESP}));
        return f;
    }

    private int allocPd(DeviceFile f) throws Errno {
        write(f, cmd(3, 4, 1, new long[] {RESP}));
        return caller.u32(RESP);
    }

    private void dealloc(DeviceFile f, int pd) throws Errno {
        write(f, cmd(4, 3, 0, new long[] {}, pd));
    }

    private int createCq(DeviceFile f) throws Errno {
        // CREATE_CQ: response, user_handle, cqe | comp_vector << 32, comp_channel -1 | reserved
        write(f, cmd(18, 10, 2, new long[] {RESP, 0x1234, 16, 0xffffffffL}));
        return caller.u32(RESP);
    }

    private void write(DeviceFile f, byte[] b) throws Errno {
        assertEquals(b.length, f.write(caller, ByteBuffer.wrap(b), 2));
    }

    /** A header and 8-byte words, then optional 4-byte words. */
    private static byte[] cmd(long command, int inWords, int outWords, long[] words, int... ints) {
        ByteBuffer b = ByteBuffer.allocate(8 + words.length * 8 + ints.length * 4).order(ByteOrder.LITTLE_ENDIAN);
        b.putInt((int) command).putShort((short) inWords).putShort((short) outWords);
        for (long w : words) {
            b.putLong(w);
        }
        for (int i : ints) {
            b.putInt(i);
        }
        return b.array();
    }

    private interface Call {
        void run() throws Errno;
    }

    private static void assertErrno(int expected, Call call) {
        Errno e = assertThrows(Errno.class, call::run);
        assertEquals(expected, e.code(), "errno");
    }

    /** Registered memory as the HCA sees it: every address mapped, no pinning limit. */
    private static final class ArrayMemory implements HostMemory {
        @Override
        public void read(long address, ByteBuffer dst) {
            dst.position(dst.limit());
        }

        @Override
        public void write(long address, ByteBuffer src) {
            src.position(src.limit());
        }

        @Override
        public boolean isMapped(long start, long length, boolean writable) {
            return true;
        }

        @Override
        public long pinnedLimit() {
            return -1;
        }
    }

    /** A caller whose memory is a few mapped blocks; installed files get descriptors from 7 on. */
    private static final class FakeCaller implements Caller {
        final TreeMap<Long, byte[]> memory = new TreeMap<>();
        final List<DeviceFile> installed = new ArrayList<>();

        void map(long address, int length) {
            memory.put(address, new byte[length]);
        }

        int u32(long address) throws Errno {
            return ByteBuffer.wrap(readMemory(address, 4)).order(ByteOrder.LITTLE_ENDIAN).getInt();
        }

        private Map.Entry<Long, byte[]> block(long address, int length) throws Errno {
            Map.Entry<Long, byte[]> e = memory.floorEntry(address);
            if (e == null || address + length > e.getKey() + e.getValue().length) {
                throw Errno.of(Errno.EFAULT);
            }
            return e;
        }

        @Override
        public int tid() {
            return (int) ProcessHandle.current().pid();
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
            Map.Entry<Long, byte[]> e = block(address, data.length);
            System.arraycopy(data, 0, e.getValue(), (int) (address - e.getKey()), data.length);
        }

        @Override
        public byte[] readMemory(long address, int length) throws Errno {
            Map.Entry<Long, byte[]> e = block(address, length);
            byte[] out = new byte[length];
            System.arraycopy(e.getValue(), (int) (address - e.getKey()), out, 0, length);
            return out;
        }

        @Override
        public int installFile(DeviceFile file, int openFlags) {
            installed.add(file);
            return 6 + installed.size();
        }
    }
}
