package io.ibemu.emulator.hca;

/**
 * What query_port reports (ibv_port_attr / ib_uverbs_query_port_resp), read live from the
 * fabric port: {@code state} and {@code physState} are PortInfo codes (ibv_port_state numbers
 * match), MTUs are codes 1..5, {@code activeWidth} the IB_WIDTH_* bit, {@code activeSpeed} the
 * IB_SPEED_* bit. {@code gids} are the port's GID table (subnet prefix : GUIDInfo entry, 16
 * bytes each), {@code pkeys} its P_Key table.
 */
public record PortAttributes(int state, int maxMtu, int activeMtu, int gidTblLen, int portCapFlags, long maxMsgSz,
        int badPkeyCntr, int qkeyViolCntr, int pkeyTblLen, int lid, int smLid, int lmc, int maxVlNum, int smSl,
        int subnetTimeout, int initTypeReply, int activeWidth, int activeSpeed, int physState, int linkLayer,
        int portCapFlags2, byte[][] gids, int[] pkeys) {

    /** IBV_LINK_LAYER_INFINIBAND. */
    public static final int LINK_LAYER_INFINIBAND = 1;

    /** MTU code 1..5 to bytes. */
    public static int mtuBytes(int code) {
        return 128 << Math.max(1, Math.min(5, code));
    }
}
