package io.ibemu.emulator.capture;

import io.ibemu.emulator.fabric.LinkPacket;
import io.ibemu.emulator.fabric.PacketTap;
import io.ibemu.emulator.fabric.Port;
import java.time.Instant;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A capture of one port: each packet crossing its cable is encoded at once (the model reuses
 * its buffers) and queued for the reader; the fabric thread never waits for the reader. A
 * reader too slow for the traffic loses packets, counted in {@link #dropped()}, rather than
 * slowing the fabric. Ends after {@code limit} packets (0: when closed).
 */
public final class Capture implements PacketTap, AutoCloseable {
    /** Packets held for a slow reader before new ones are dropped. */
    static final int QUEUE = 4096;

    private final Port port;
    private final long limit;
    private final BlockingQueue<Frame> queue = new ArrayBlockingQueue<>(QUEUE);
    private final AtomicLong taken = new AtomicLong();
    private final AtomicLong dropped = new AtomicLong();

    private Capture(Port port, long limit) {
        this.port = port;
        this.limit = limit;
    }

    /** Starts capturing {@code port}; refused if it is captured already. */
    public static Capture start(Port port, long limit) {
        Capture c = new Capture(port, limit);
        port.startCapture(c);
        return c;
    }

    public Port port() {
        return port;
    }

    @Override
    public void crossed(Port at, boolean outbound, LinkPacket packet) {
        long n = taken.incrementAndGet();
        if (limit > 0 && n > limit) {
            port.stopCapture(this);
            return;
        }
        Instant now = Instant.now();
        Frame f = new Frame(now.getEpochSecond() * 1_000_000_000L + now.getNano(), outbound, WireFrame.encode(packet));
        if (!queue.offer(f)) {
            dropped.incrementAndGet();
        }
        if (limit > 0 && n == limit) {
            port.stopCapture(this);
        }
    }

    /** The next frame, waiting up to {@code timeoutMillis}; null if none came. */
    public Frame next(long timeoutMillis) throws InterruptedException {
        return queue.poll(timeoutMillis, TimeUnit.MILLISECONDS);
    }

    /** Whether every frame the capture will ever give has been taken. */
    public boolean finished() {
        return limit > 0 && taken.get() >= limit && queue.isEmpty();
    }

    /** Frames lost because the reader fell behind. */
    public long dropped() {
        return dropped.get();
    }

    @Override
    public void close() {
        port.stopCapture(this);
    }
}
