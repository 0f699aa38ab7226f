package io.ibemu.kernel;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import jnr.ffi.Pointer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** ProcessMemory.writable on this process's own pages: what a umad read check tries of a caller's buffer. */
class ProcessMemoryTest {
    private static final int PAGE = 4096;
    /** More pages than one process_vm_writev tries (256), so the walk takes two calls. */
    private static final int PAGES = 300;
    private static final int PROT_READ = 1;

    private Pointer area;
    private int pid;

    @BeforeEach
    void map() {
        area = Mapping.LIBC.mmap(null, (long) PAGES * PAGE, Mapping.PROT_READ_WRITE, Mapping.MAP_PRIVATE_ANONYMOUS, -1, 0);
        assertTrue(area != null && area.address() != -1L, "mmap");
        for (long at = 0; at < (long) PAGES * PAGE; at += 8) {
            area.putLong(at, 0x5555_5555_5555_5555L);
        }
        pid = Mapping.LIBC.getpid();
    }

    @AfterEach
    void unmap() {
        Mapping.LIBC.munmap(area, (long) PAGES * PAGE);
    }

    @Test
    void aWritableRangeIsTriedOnceInEachPageItSpans() {
        long start = 100;
        int length = (PAGES - 1) * PAGE;
        assertTrue(ProcessMemory.writable(pid, area.address() + start, length));
        assertEquals(0, area.getByte(start), "the first byte");
        assertEquals(0, area.getByte(PAGE), "a page's first byte");
        assertEquals(0, area.getByte((long) (PAGES - 1) * PAGE), "the last page's first byte");
        assertEquals(0x55, area.getByte(start + 1), "nothing else is written");
        assertEquals(0x55, area.getByte(PAGE + 1));
        assertEquals(0x55, area.getByte(start + length), "nothing past the range");
        assertTrue(ProcessMemory.writable(pid, area.address(), 0), "an empty range");
    }

    @Test
    void aReadOnlyPageAnywhereInTheRangeFailsIt() {
        long last = (long) (PAGES - 1) * PAGE;
        assertEquals(0, Mapping.LIBC.mprotect(area.slice(last), PAGE, PROT_READ));
        assertFalse(ProcessMemory.writable(pid, area.address() + PAGE - 10, (int) last), "the last page is read-only");
        assertFalse(ProcessMemory.writable(pid, area.address() + last - 1, 2), "a range straddling into it");
        assertTrue(ProcessMemory.writable(pid, area.address(), (int) last), "the range before it");
        assertFalse(ProcessMemory.writable(pid, 0, 16), "page 0 is never mapped");
    }
    @Test
    void severalRangesAreWrittenInOrderUntilOneCannotBe() {
        long a = area.address();
        byte[] one = {1, 2, 3};
        byte[] two = {4, 5};
        assertEquals(2, ProcessMemory.writeAll(pid, new long[] {a + 10, a + PAGE + 20}, new byte[][] {one, two}));
        assertEquals(2, area.getByte(11));
        assertEquals(5, area.getByte(PAGE + 21));
        assertEquals(0x55, area.getByte(13), "nothing past a range");
        long readOnly = (long) (PAGES - 1) * PAGE;
        assertEquals(0, Mapping.LIBC.mprotect(area.slice(readOnly), PAGE, PROT_READ));
        assertEquals(1, ProcessMemory.writeAll(pid, new long[] {a + 30, a + readOnly, a + 40},
                new byte[][] {one, two, one}), "the second range is read-only");
        assertEquals(3, area.getByte(32), "the range before it is written");
        assertEquals(0x55, area.getByte(40), "the range after it is not");
        assertEquals(0, ProcessMemory.writeAll(pid, new long[] {0}, new byte[][] {one}), "page 0");
    }

    @Test
    void severalRangesAreReadTogetherOrNotAtAll() {
        long a = area.address();
        area.putByte(PAGE + 7, (byte) 9);
        byte[][] got = ProcessMemory.readAll(pid, new long[] {a + 5, a + PAGE + 6}, new int[] {2, 3});
        assertEquals(2, got.length);
        assertEquals(0x55, got[0][1]);
        assertEquals(9, got[1][1]);
        assertEquals(3, got[1].length);
        assertNull(ProcessMemory.readAll(pid, new long[] {a, 8}, new int[] {4, 4}), "one unreadable range");
    }
}
