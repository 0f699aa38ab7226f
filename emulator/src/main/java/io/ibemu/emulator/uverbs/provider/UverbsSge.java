package io.ibemu.emulator.uverbs.provider;

import io.ibemu.emulator.hca.Sge;
import io.ibemu.kernel.CField;
import io.ibemu.kernel.CStruct;

import java.util.ArrayList;
import java.util.List;

/**
 * {@code struct ib_sge}, a WQE's scatter/gather entry as the mapped queues hold it: rdmavt's
 * receive WQE and rxe's send and receive WQEs end with an array of these (rxe_sge has the same
 * layout), {@code num_sge} of them.
 */
public final class UverbsSge {
    public static final CStruct LAYOUT = CStruct.named("ib_sge").u64("addr").u32("length").u32("lkey").build();
    public static final int SIZE = LAYOUT.size();
    private static final CField ADDR = LAYOUT.field("addr");
    private static final CField LENGTH = LAYOUT.field("length");
    private static final CField LKEY = LAYOUT.field("lkey");

    private UverbsSge() {
    }

    /** The {@code n} entries at {@code at} in {@code wqe}. */
    public static List<Sge> decode(byte[] wqe, int at, int n) {
        List<Sge> sges = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            int base = at + i * SIZE;
            sges.add(new Sge(ADDR.get(wqe, base), (int) LENGTH.get(wqe, base), (int) LKEY.get(wqe, base)));
        }
        return sges;
    }

    /** Writes {@code sges} at {@code at} in {@code wqe}. */
    public static void encode(List<Sge> sges, byte[] wqe, int at) {
        for (int i = 0; i < sges.size(); i++) {
            Sge s = sges.get(i);
            int base = at + i * SIZE;
            ADDR.put(wqe, base, s.addr());
            LENGTH.put(wqe, base, s.length() & 0xffffffffL);
            LKEY.put(wqe, base, s.lkey() & 0xffffffffL);
        }
    }
}
