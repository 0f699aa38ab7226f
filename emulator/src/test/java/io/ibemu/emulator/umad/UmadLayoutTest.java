package io.ibemu.emulator.umad;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.ibemu.emulator.HeaderLayout;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** umad's structures against /usr/include/rdma/ib_user_mad.h, the real sizeof and offsetof of every member. */
class UmadLayoutTest {

    @TempDir
    Path temp;

    @Test
    void layoutsMatchIbUserMadH() throws Exception {
        HeaderLayout.assertMatches(temp, "rdma/ib_user_mad.h", List.of(UmadHeader.LAYOUT, UmadHeader.LAYOUT_OLD,
                AgentRequest.V1.LAYOUT, AgentRequest.V2.LAYOUT));
        assertEquals(64, UmadHeader.SIZE);
        assertEquals(56, UmadHeader.SIZE_OLD);
    }
}
