package io.ibemu.emulator.hca;

import static io.ibemu.emulator.hca.QpAttributeMask.ACCESS_FLAGS;
import static io.ibemu.emulator.hca.QpAttributeMask.ALT_PATH;
import static io.ibemu.emulator.hca.QpAttributeMask.AV;
import static io.ibemu.emulator.hca.QpAttributeMask.CUR_STATE;
import static io.ibemu.emulator.hca.QpAttributeMask.DEST_QPN;
import static io.ibemu.emulator.hca.QpAttributeMask.EN_SQD_ASYNC_NOTIFY;
import static io.ibemu.emulator.hca.QpAttributeMask.MAX_DEST_RD_ATOMIC;
import static io.ibemu.emulator.hca.QpAttributeMask.MAX_QP_RD_ATOMIC;
import static io.ibemu.emulator.hca.QpAttributeMask.MIN_RNR_TIMER;
import static io.ibemu.emulator.hca.QpAttributeMask.PATH_MIG_STATE;
import static io.ibemu.emulator.hca.QpAttributeMask.PATH_MTU;
import static io.ibemu.emulator.hca.QpAttributeMask.PKEY_INDEX;
import static io.ibemu.emulator.hca.QpAttributeMask.PORT;
import static io.ibemu.emulator.hca.QpAttributeMask.QKEY;
import static io.ibemu.emulator.hca.QpAttributeMask.RETRY_CNT;
import static io.ibemu.emulator.hca.QpAttributeMask.RNR_RETRY;
import static io.ibemu.emulator.hca.QpAttributeMask.RQ_PSN;
import static io.ibemu.emulator.hca.QpAttributeMask.SQ_PSN;
import static io.ibemu.emulator.hca.QpAttributeMask.STATE;
import static io.ibemu.emulator.hca.QpAttributeMask.TIMEOUT;

import java.util.EnumMap;
import java.util.Map;
import java.util.Optional;

/**
 * Which QP state transitions exist and which attribute bits each needs and allows, per QP
 * type: the table of the kernel's ib_modify_qp_is_ok (drivers/infiniband/core/verbs.c
 * qp_state_table, IBA 10.3.1 / 11.2.4.2), declared here once as data. Every state may go to
 * RESET and ERR with no attribute; a transition not listed is invalid.
 */
public final class QpTransitions {

    /** Required and optional bits of one transition for one QP type (STATE is always allowed). */
    public record Rule(int required, int optional) {
    }

    private static final Map<QpState, Map<QpState, Map<QpType, Rule>>> TABLE = new EnumMap<>(QpState.class);

    static {
        for (QpState from : QpState.values()) {
            TABLE.put(from, new EnumMap<>(QpState.class));
            all(from, QpState.RESET, 0, 0);
            all(from, QpState.ERR, 0, 0);
        }
        int connectedInit = PKEY_INDEX | PORT | ACCESS_FLAGS;
        rule(QpState.RESET, QpState.INIT, new Object[][] {
            {QpType.UD, PKEY_INDEX | PORT | QKEY, 0},
            {QpType.UC, connectedInit, 0}, {QpType.RC, connectedInit, 0},
            {QpType.XRC_INI, connectedInit, 0}, {QpType.XRC_TGT, connectedInit, 0},
            {QpType.SMI, PKEY_INDEX | QKEY, 0}, {QpType.GSI, PKEY_INDEX | QKEY, 0},
            {QpType.RAW_PACKET, PORT, 0}});
        rule(QpState.INIT, QpState.INIT, new Object[][] {
            {QpType.UD, 0, PKEY_INDEX | PORT | QKEY},
            {QpType.UC, 0, connectedInit}, {QpType.RC, 0, connectedInit},
            {QpType.XRC_INI, 0, connectedInit}, {QpType.XRC_TGT, 0, connectedInit},
            {QpType.SMI, 0, PKEY_INDEX | QKEY}, {QpType.GSI, 0, PKEY_INDEX | QKEY},
            {QpType.RAW_PACKET, 0, 0}});
        int connectedRtr = AV | PATH_MTU | DEST_QPN | RQ_PSN;
        int reliableRtr = connectedRtr | MAX_DEST_RD_ATOMIC | MIN_RNR_TIMER;
        int rtrOptional = ALT_PATH | ACCESS_FLAGS | PKEY_INDEX;
        rule(QpState.INIT, QpState.RTR, new Object[][] {
            {QpType.UD, 0, PKEY_INDEX | QKEY},
            {QpType.UC, connectedRtr, rtrOptional}, {QpType.RC, reliableRtr, rtrOptional},
            {QpType.XRC_INI, connectedRtr, rtrOptional}, {QpType.XRC_TGT, reliableRtr, rtrOptional},
            {QpType.SMI, 0, PKEY_INDEX | QKEY}, {QpType.GSI, 0, PKEY_INDEX | QKEY},
            {QpType.RAW_PACKET, 0, 0}});
        int reliableRts = TIMEOUT | RETRY_CNT | RNR_RETRY | SQ_PSN | MAX_QP_RD_ATOMIC;
        int ucRtsOptional = CUR_STATE | ALT_PATH | ACCESS_FLAGS | PATH_MIG_STATE;
        int rcRtsOptional = ucRtsOptional | MIN_RNR_TIMER;
        rule(QpState.RTR, QpState.RTS, new Object[][] {
            {QpType.UD, SQ_PSN, CUR_STATE | QKEY},
            {QpType.UC, SQ_PSN, ucRtsOptional}, {QpType.RC, reliableRts, rcRtsOptional},
            {QpType.XRC_INI, reliableRts, ucRtsOptional}, {QpType.XRC_TGT, TIMEOUT | SQ_PSN, rcRtsOptional},
            {QpType.SMI, SQ_PSN, CUR_STATE | QKEY}, {QpType.GSI, SQ_PSN, CUR_STATE | QKEY},
            {QpType.RAW_PACKET, 0, QpAttributeMask.RATE_LIMIT}});
        for (QpState from : new QpState[] {QpState.RTS, QpState.SQD}) {
            rule(from, QpState.RTS, new Object[][] {
                {QpType.UD, 0, CUR_STATE | QKEY},
                {QpType.UC, 0, ucRtsOptional}, {QpType.RC, 0, rcRtsOptional},
                {QpType.XRC_INI, 0, ucRtsOptional}, {QpType.XRC_TGT, 0, rcRtsOptional},
                {QpType.SMI, 0, CUR_STATE | QKEY}, {QpType.GSI, 0, CUR_STATE | QKEY},
                {QpType.RAW_PACKET, 0, from == QpState.RTS ? QpAttributeMask.RATE_LIMIT : 0}});
        }
        rule(QpState.RTS, QpState.SQD, new Object[][] {
            {QpType.UD, 0, EN_SQD_ASYNC_NOTIFY}, {QpType.UC, 0, EN_SQD_ASYNC_NOTIFY},
            {QpType.RC, 0, EN_SQD_ASYNC_NOTIFY}, {QpType.XRC_INI, 0, EN_SQD_ASYNC_NOTIFY},
            {QpType.XRC_TGT, 0, EN_SQD_ASYNC_NOTIFY}, {QpType.SMI, 0, EN_SQD_ASYNC_NOTIFY},
            {QpType.GSI, 0, EN_SQD_ASYNC_NOTIFY}, {QpType.RAW_PACKET, 0, 0}});
        int sqdPath = PORT | AV | TIMEOUT | ALT_PATH | ACCESS_FLAGS | PKEY_INDEX | PATH_MIG_STATE;
        rule(QpState.SQD, QpState.SQD, new Object[][] {
            {QpType.UD, 0, PKEY_INDEX | QKEY},
            {QpType.UC, 0, AV | ALT_PATH | ACCESS_FLAGS | PKEY_INDEX | PATH_MIG_STATE},
            {QpType.RC, 0, sqdPath | RETRY_CNT | RNR_RETRY | MAX_QP_RD_ATOMIC | MAX_DEST_RD_ATOMIC | MIN_RNR_TIMER},
            {QpType.XRC_INI, 0, sqdPath | RETRY_CNT | RNR_RETRY | MAX_QP_RD_ATOMIC},
            {QpType.XRC_TGT, 0, sqdPath | MAX_DEST_RD_ATOMIC | MIN_RNR_TIMER},
            {QpType.SMI, 0, PKEY_INDEX | QKEY}, {QpType.GSI, 0, PKEY_INDEX | QKEY},
            {QpType.RAW_PACKET, 0, 0}});
        // SQE only recovers to RTS for the unreliable types (RC has no SQE: errors go to ERR)
        rule(QpState.SQE, QpState.RTS, new Object[][] {
            {QpType.UD, 0, CUR_STATE | QKEY}, {QpType.UC, 0, CUR_STATE | ACCESS_FLAGS},
            {QpType.SMI, 0, CUR_STATE | QKEY}, {QpType.GSI, 0, CUR_STATE | QKEY},
            {QpType.RC, 0, 0}, {QpType.XRC_INI, 0, 0}, {QpType.XRC_TGT, 0, 0}, {QpType.RAW_PACKET, 0, 0}});
    }

    private QpTransitions() {
    }

    private static void all(QpState from, QpState to, int required, int optional) {
        Map<QpType, Rule> byType = new EnumMap<>(QpType.class);
        for (QpType t : QpType.values()) {
            byType.put(t, new Rule(required, optional));
        }
        TABLE.get(from).put(to, byType);
    }

    private static void rule(QpState from, QpState to, Object[][] rows) {
        Map<QpType, Rule> byType = new EnumMap<>(QpType.class);
        for (Object[] row : rows) {
            byType.put((QpType) row[0], new Rule((Integer) row[1], (Integer) row[2]));
        }
        TABLE.get(from).put(to, byType);
    }

    /** The rule for {@code from -> to} on a QP of {@code type}; empty when the transition does not exist. */
    public static Optional<Rule> rule(QpState from, QpState to, QpType type) {
        Map<QpType, Rule> byType = TABLE.get(from).get(to);
        return byType == null ? Optional.empty() : Optional.ofNullable(byType.get(type));
    }

    /**
     * ib_modify_qp_is_ok: CUR_STATE only from RTR, RTS, SQD, SQE; the transition exists; every
     * required bit is in {@code mask}; no bit outside required, optional and STATE.
     */
    public static boolean isOk(QpState from, QpState to, QpType type, int mask) {
        if ((mask & CUR_STATE) != 0 && from != QpState.RTR && from != QpState.RTS && from != QpState.SQD
                && from != QpState.SQE) {
            return false;
        }
        Optional<Rule> r = rule(from, to, type);
        if (r.isEmpty()) {
            return false;
        }
        int required = r.get().required();
        return (mask & required) == required && (mask & ~(required | r.get().optional() | STATE)) == 0;
    }
}
