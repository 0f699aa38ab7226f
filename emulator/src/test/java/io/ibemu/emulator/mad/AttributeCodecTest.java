package io.ibemu.emulator.mad;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.function.BiFunction;
import org.junit.jupiter.api.Test;

/**
 * The plain encode/decode code of the attributes every sweep touches (PortInfo, NodeInfo,
 * SwitchInfo, P_KeyTable blocks) gives the same bytes and records as the reflective
 * {@link RecordCodec} driven by the same {@link Layout}, for random contents at random offsets
 * (the bytes around the attribute untouched).
 */
class AttributeCodecTest {
    private static final int ROUNDS = 500;

    private interface Encoder<R> {
        void encode(R r, byte[] b, int offset);
    }

    private static <R extends Record> void agree(RecordCodec<R> codec, BiFunction<byte[], Integer, R> plainDecode,
                                                 Encoder<R> plainEncode) {
        Random random = new Random(7);
        int size = codec.layout().sizeBytes();
        for (int i = 0; i < ROUNDS; i++) {
            int offset = random.nextInt(64);
            byte[] raw = new byte[offset + size + 8];
            random.nextBytes(raw);
            R reflective = codec.decode(raw, offset);
            R plain = plainDecode.apply(raw, offset);
            assertEquals(reflective, plain, codec.layout().name() + " decode");

            byte[] a = raw.clone();
            byte[] b = raw.clone();
            codec.encode(reflective, a, offset);
            plainEncode.encode(plain, b, offset);
            assertArrayEquals(a, b, codec.layout().name() + " encode");
        }
    }

    @Test
    void portInfo() {
        agree(PortInfo.CODEC, PortInfo::decode, PortInfo::encode);
    }

    @Test
    void nodeInfo() {
        agree(NodeInfo.CODEC, NodeInfo::decode, NodeInfo::encode);
    }

    @Test
    void switchInfo() {
        agree(SwitchInfo.CODEC, SwitchInfo::decode, SwitchInfo::encode);
    }

    @Test
    void pKeyTableBlocks() {
        Random random = new Random(11);
        for (int i = 0; i < ROUNDS; i++) {
            int[] table = new int[1 + random.nextInt(100)];
            for (int k = 0; k < table.length; k++) {
                table[k] = random.nextInt(0x10000);
            }
            int block = random.nextInt((table.length + PKeyTable.PER_BLOCK - 1) / PKeyTable.PER_BLOCK);
            List<Integer> keys = new ArrayList<>();
            for (int k = 0; k < PKeyTable.PER_BLOCK; k++) {
                int index = block * PKeyTable.PER_BLOCK + k;
                keys.add(index < table.length ? table[index] : 0);
            }
            byte[] reflective = new byte[80];
            byte[] plain = new byte[80];
            PKeyTable.CODEC.encode(new PKeyTable(keys), reflective, 8);
            PKeyTable.encodeBlock(table, block, plain, 8);
            assertArrayEquals(reflective, plain, "block " + block + " of " + table.length);
            for (int k = 0; k < PKeyTable.PER_BLOCK; k++) {
                assertEquals((int) keys.get(k), PKeyTable.entry(plain, 8, k));
            }
        }
    }
}
