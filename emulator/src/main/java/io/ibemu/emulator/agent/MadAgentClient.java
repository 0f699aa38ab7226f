package io.ibemu.emulator.agent;

/**
 * The owner of a {@link MadAgent}: the kernel's recv_handler and send_handler. Called with the
 * fabric lock held, so implementations only queue and wake; they never block.
 */
public interface MadAgentClient {

    void received(MadAgent agent, ReceivedMad mad);

    void sendCompleted(MadAgent agent, SendRequest send, SendStatus status);
}
