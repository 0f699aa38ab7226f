package io.ibemu.emulator.uverbs;

import io.ibemu.kernel.CStruct;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The computed layouts against what gcc gives for /usr/include/rdma/ib_user_verbs.h on x86_64
 * (sizeof and offsetof, recorded from a compiled C program).
 */
class AbiLayoutTest {

    @Test
    void structSizesMatchTheKernelHeader() {
        assertSize(176, Abi.QUERY_DEVICE_RESP);
        assertSize(304, Abi.EX_QUERY_DEVICE_RESP);
        assertSize(40, Abi.QUERY_PORT_RESP);
        assertSize(16, Abi.QUERY_PORT);
        assertSize(32, Abi.CREATE_CQ);
        assertSize(32, Abi.EX_CREATE_CQ);
        assertSize(48, Abi.WC);
        assertSize(32, Abi.QP_DEST);
        assertSize(32, Abi.AH_ATTR);
        assertSize(56, Abi.CREATE_QP);
        assertSize(20, Abi.QP_CAP);
        assertSize(64, Abi.EX_CREATE_QP);
        assertSize(128, Abi.QUERY_QP_RESP);
        assertSize(112, Abi.MODIFY_QP);
        assertSize(120, Abi.EX_MODIFY_QP);
        assertSize(56, Abi.SEND_WR);
        assertSize(56, Abi.CREATE_AH);
        assertSize(24, Abi.MCAST);
        assertSize(48, Abi.CREATE_XSRQ);
        assertSize(40, Abi.REG_MR);
        assertSize(48, Abi.REREG_MR);
        assertSize(24, Abi.POST_SEND);
        assertSize(32, Abi.OPEN_QP);
        assertSize(16, Abi.ALLOC_MW);
    }

    @Test
    void offsetsInsideUnionsAndNestedStructsMatch() {
        assertEquals(32, Abi.SEND_WR_RDMA.field("rkey").offset());
        assertEquals(24, Abi.SEND_WR_UD.field("ah").offset());
        assertEquals(48, Abi.SEND_WR.field("atomic_rkey").offset());
        assertEquals(108, Abi.QUERY_QP_RESP.field("qp_state").offset());
        assertEquals(96, Abi.MODIFY_QP.field("qp_state").offset());
        assertEquals(288, Abi.EX_QUERY_DEVICE_RESP.field("max_dm_size").offset());
        assertEquals(16, Abi.EX_CREATE_CQ_RESP.endOf("response_length"));
        assertEquals(112, Abi.EX_MODIFY_QP.endOf("base"));
    }

    private static void assertSize(int expected, CStruct s) {
        assertEquals(expected, s.size(), s.name());
    }
}
