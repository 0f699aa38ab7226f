package io.ibemu.emulator.rdmacm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ibemu.devfs.device.Caller;
import io.ibemu.devfs.device.DeviceFile;
import io.ibemu.emulator.TestCaller;
import io.ibemu.emulator.fault.FaultSyntaxException;
import io.ibemu.emulator.fault.Faults;
import io.ibemu.kernel.Errno;
import java.nio.ByteBuffer;
import org.junit.jupiter.api.Test;

/**
 * The {@code on=ucma:NAME} fault point of ucma_write: a rule fails its command before the handler
 * (here no RDMA CM is behind the device: a handler that ran would fail otherwise), after the
 * header's own checks, and names only commands the table has.
 */
class UcmaFaultTest {
    private static final Caller CALLER = TestCaller.INSTANCE;

    /** A CREATE_ID write: the header with {@code out}, then the request (all zero). */
    private static ByteBuffer createId(int out) {
        int in = Ucma.CREATE_ID.size();
        byte[] b = new byte[Ucma.CMD_HDR.size() + in];
        Ucma.CMD_HDR.field("cmd").put(b, 0, UcmaCommands.CREATE_ID);
        Ucma.CMD_HDR.field("in").put(b, 0, in);
        Ucma.CMD_HDR.field("out").put(b, 0, out);
        return ByteBuffer.wrap(b);
    }

    @Test
    void aRuleFailsItsCommandBeforeTheHandlerAndOnlyAfterTheHeaderChecks() throws Exception {
        Faults faults = new Faults();
        DeviceFile file = new RdmaCmDevice(null, faults).open(CALLER, 0);
        faults.add("on=ucma:CREATE_ID errno=ENOMEM");
        Errno enospc = assertThrows(Errno.class, () -> file.write(CALLER, createId(0), 0));
        assertEquals(Errno.ENOSPC, enospc.code(), "a short out is ENOSPC first");
        assertTrue(faults.list().get(0).startsWith("1 hits=0 matched=0 "), faults.list().toString());
        Errno enomem = assertThrows(Errno.class,
                () -> file.write(CALLER, createId(Ucma.CREATE_ID_RESP.size()), 0));
        assertEquals(Errno.ENOMEM, enomem.code());
        assertTrue(faults.list().get(0).startsWith("1 hits=1 matched=1 "), faults.list().toString());
    }

    @Test
    void aRuleNamingNoUcmaCommandIsRefused() {
        Faults faults = new Faults();
        new RdmaCmDevice(null, faults);
        assertThrows(FaultSyntaxException.class, () -> faults.add("on=ucma:CREATE_QP errno=ENOMEM"));
        assertTrue(faults.list().isEmpty());
    }
}
