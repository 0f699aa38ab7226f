package io.ibemu.emulator.uverbs.provider.rxe;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * One rxe_queue in memory the program maps: the header written once at init, then slots of a
 * power-of-two size. The daemon keeps its own copy of the mask and element size (the program may
 * scribble on the header) and masks every index it reads, as rxe_queue.h's kernel side does; the
 * other side's index is loaded with acquire order, its own stored with release
 * (queue_get_producer/queue_advance_consumer's smp_load_acquire/smp_store_release).
 */
final class RxeQueue {
    private static final VarHandle INT = MethodHandles.byteBufferViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);

    private final ByteBuffer buffer;
    private final int mask;
    private final int elementSize;

    /** rxe_queue_init: {@code slots} (a power of two) of {@code elementSize} bytes (a power of two). */
    RxeQueue(ByteBuffer buffer, int slots, int elementSize) {
        this.buffer = buffer;
        this.mask = slots - 1;
        this.elementSize = elementSize;
        buffer.putInt(Rxe.LOG2_ELEM_SIZE, Integer.numberOfTrailingZeros(elementSize));
        buffer.putInt(Rxe.INDEX_MASK, mask);
    }

    /** The bytes a queue of {@code slots} elements of {@code elementSize} takes: header and data. */
    static int bytes(int slots, int elementSize) {
        return Rxe.DATA + slots * elementSize;
    }

    int slots() {
        return mask + 1;
    }

    int elementSize() {
        return elementSize;
    }

    int next(int index) {
        return (index + 1) & mask;
    }

    int acquireProducer() {
        return (int) INT.getAcquire(buffer, Rxe.PRODUCER) & mask;
    }

    int acquireConsumer() {
        return (int) INT.getAcquire(buffer, Rxe.CONSUMER) & mask;
    }

    void releaseProducer(int index) {
        INT.setRelease(buffer, Rxe.PRODUCER, index & mask);
    }

    void releaseConsumer(int index) {
        INT.setRelease(buffer, Rxe.CONSUMER, index & mask);
    }

    /** Entries between {@code consumer} and {@code producer}. */
    int count(int producer, int consumer) {
        return (producer - consumer) & mask;
    }

    /** Copies slot {@code index}'s first {@code out.length} bytes out. */
    void read(int index, byte[] out) {
        buffer.get(Rxe.DATA + (index & mask) * elementSize, out, 0, Math.min(out.length, elementSize));
    }

    /** Writes {@code in} at the start of slot {@code index}. */
    void write(int index, byte[] in) {
        buffer.put(Rxe.DATA + (index & mask) * elementSize, in, 0, Math.min(in.length, elementSize));
    }
}
