package io.ibemu.emulator.agent;

import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * A MadAgentClient that only records, as a umad file queues what its agents receive and the
 * completions of what they sent; tests take the records out in order.
 */
final class Recorder implements MadAgentClient {

    /** One send_handler call, with when it happened. */
    record Completion(MadAgent agent, SendRequest send, SendStatus status, long atNanos) {
    }

    /** One recv_handler call, with the agent it went to. */
    record Received(MadAgent agent, ReceivedMad mad, long atNanos) {
    }

    final BlockingQueue<Received> received = new LinkedBlockingQueue<>();
    final BlockingQueue<Completion> completions = new LinkedBlockingQueue<>();

    @Override
    public void received(MadAgent agent, ReceivedMad mad) {
        received.add(new Received(agent, mad, System.nanoTime()));
    }

    @Override
    public void sendCompleted(MadAgent agent, SendRequest send, SendStatus status) {
        completions.add(new Completion(agent, send, status, System.nanoTime()));
    }

    Received nextReceived(long timeoutMs) throws InterruptedException {
        return received.poll(timeoutMs, TimeUnit.MILLISECONDS);
    }

    Completion nextCompletion(long timeoutMs) throws InterruptedException {
        return completions.poll(timeoutMs, TimeUnit.MILLISECONDS);
    }
}
