package io.ibemu.emulator.hca;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.kenai.jffi.MemoryIO;
import java.nio.ByteBuffer;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** The real process memory, on this JVM's own pid: DMA through process_vm_readv/writev, /proc/PID/maps. */
class ProcessHostMemoryTest {
    private final ProcessHostMemory self = new ProcessHostMemory((int) ProcessHandle.current().pid());

    @Test
    void readsAndWritesAnotherMappingOfTheProcess() throws Exception {
        ByteBuffer target = ByteBuffer.allocateDirect(1 << 20);
        long address = MemoryIO.getInstance().getDirectBufferAddress(target);
        byte[] data = new byte[1 << 20];
        new Random(1).nextBytes(data);
        self.write(address, ByteBuffer.wrap(data));
        byte[] seen = new byte[data.length];
        target.duplicate().get(seen);
        assertArrayEquals(data, seen);
        ByteBuffer back = ByteBuffer.allocateDirect(data.length);
        self.read(address, back);
        byte[] got = new byte[data.length];
        back.flip().get(got);
        assertArrayEquals(data, got);
        assertTrue(self.isMapped(address, data.length, true));
    }

    @Test
    void unmappedAddressesFault() {
        assertFalse(self.isMapped(0x1000, 4096, false));
        assertThrows(MemoryFault.class, () -> self.read(0x1000, ByteBuffer.allocate(8)));
    }
}
