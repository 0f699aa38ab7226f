/**
 * rxe's driver half (drivers/infiniband/sw/rxe): the rxe_queues the rxe provider maps for CQs,
 * send and receive queues and SRQs ({@code rdma_user_rxe.h}, declared once in {@link
 * io.ibemu.emulator.uverbs.provider.rxe.Rxe}), the send WQEs read at the POST_SEND doorbell, and
 * the AH numbers UD WQEs carry. Arrows go down only: to the model's ring interfaces and to the
 * provider layer's {@code Driver} and {@code QueueMemory}.
 */
package io.ibemu.emulator.uverbs.provider.rxe;
