package io.ibemu.emulator.hca;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The ib_modify_qp_is_ok table: every transition, every type, each required bit missing and a bit extra. */
class QpTransitionsTest {

    @Test
    void everyTransitionNeedsItsRequiredBitsAndRefusesOthers() {
        int checked = 0;
        for (QpState from : QpState.values()) {
            for (QpState to : QpState.values()) {
                for (QpType type : QpType.values()) {
                    Optional<QpTransitions.Rule> rule = QpTransitions.rule(from, to, type);
                    if (rule.isEmpty()) {
                        assertFalse(QpTransitions.isOk(from, to, type, QpAttributeMask.STATE), from + "->" + to);
                        continue;
                    }
                    int req = rule.get().required();
                    int opt = rule.get().optional();
                    String what = type + " " + from + "->" + to;
                    assertTrue(QpTransitions.isOk(from, to, type, QpAttributeMask.STATE | req), what);
                    assertTrue(QpTransitions.isOk(from, to, type, QpAttributeMask.STATE | req | opt), what + " +opt");
                    for (int bit = 1; bit != 0 && bit <= QpAttributeMask.RATE_LIMIT; bit <<= 1) {
                        if ((req & bit) != 0) {
                            assertFalse(QpTransitions.isOk(from, to, type, QpAttributeMask.STATE | (req & ~bit)),
                                    what + " missing " + QpAttributeMask.describe(bit));
                        } else if ((opt & bit) == 0 && bit != QpAttributeMask.STATE) {
                            assertFalse(QpTransitions.isOk(from, to, type, QpAttributeMask.STATE | req | bit),
                                    what + " extra " + QpAttributeMask.describe(bit));
                        }
                    }
                    checked++;
                }
            }
        }
        assertTrue(checked > 100, "transitions checked: " + checked);
    }

    @Test
    void theRequiredBitsAreTheKernels() {
        int rtrRc = QpTransitions.rule(QpState.INIT, QpState.RTR, QpType.RC).orElseThrow().required();
        assertEquals(QpAttributeMask.AV | QpAttributeMask.PATH_MTU | QpAttributeMask.DEST_QPN | QpAttributeMask.RQ_PSN
                | QpAttributeMask.MAX_DEST_RD_ATOMIC | QpAttributeMask.MIN_RNR_TIMER, rtrRc);
        assertEquals(QpAttributeMask.PKEY_INDEX | QpAttributeMask.PORT | QpAttributeMask.QKEY,
                QpTransitions.rule(QpState.RESET, QpState.INIT, QpType.UD).orElseThrow().required());
        assertEquals(QpAttributeMask.TIMEOUT | QpAttributeMask.SQ_PSN,
                QpTransitions.rule(QpState.RTR, QpState.RTS, QpType.XRC_TGT).orElseThrow().required());
        assertEquals(0, QpTransitions.rule(QpState.INIT, QpState.RTR, QpType.UD).orElseThrow().required());
        assertTrue(QpTransitions.rule(QpState.RESET, QpState.RTS, QpType.RC).isEmpty());
        assertTrue(QpTransitions.rule(QpState.ERR, QpState.RTS, QpType.UD).isEmpty());
        // CUR_STATE only from RTR, RTS, SQD, SQE
        assertFalse(QpTransitions.isOk(QpState.INIT, QpState.INIT, QpType.RC,
                QpAttributeMask.STATE | QpAttributeMask.CUR_STATE));
        assertTrue(QpTransitions.isOk(QpState.RTS, QpState.RTS, QpType.RC,
                QpAttributeMask.STATE | QpAttributeMask.CUR_STATE));
        // any state may go to RESET and ERR with nothing else
        for (QpState s : QpState.values()) {
            assertTrue(QpTransitions.isOk(s, QpState.ERR, QpType.UC, QpAttributeMask.STATE));
            assertTrue(QpTransitions.isOk(s, QpState.RESET, QpType.UC, QpAttributeMask.STATE));
            assertFalse(QpTransitions.isOk(s, QpState.ERR, QpType.UC, QpAttributeMask.STATE | QpAttributeMask.QKEY));
        }
    }
}
