/**
 * The HCA verbs model: what a channel adapter does with the verbs of IBA chapter 11 — protection
 * domains, memory regions, completion queues, queue pairs and their state machine (ch. 10), and
 * the RC/UC/UD transports (ch. 9) carried as packets over the emulated fabric. Split by role as
 * the kernel's soft-RoCE driver (drivers/infiniband/sw/rxe) is: {@link
 * io.ibemu.emulator.hca.Requester} sends, {@link io.ibemu.emulator.hca.Responder} receives, {@link
 * io.ibemu.emulator.hca.Completer} finishes work requests, {@link io.ibemu.emulator.hca.DataLink}
 * carries packets, {@link io.ibemu.emulator.hca.QpModify} is modify_qp (rxe_qp.c) and {@link
 * io.ibemu.emulator.hca.MemoryRegistration} memory registration and its keys (rxe_mr.c).
 *
 * <p>No ABI byte layout lives here: the uverbs layer decodes commands and calls {@link
 * io.ibemu.emulator.hca.Hca}. Errors are {@link io.ibemu.kernel.Errno} with the errno the kernel
 * returns for the verb; completions carry {@code ibv_wc_status} and {@code ibv_wc_opcode} numbers.
 *
 * <p>Locking: one model lock for every HCA sharing a {@link io.ibemu.emulator.hca.DataLink}
 * ({@link io.ibemu.emulator.hca.DataLink#lock()}); the fabric lock is taken only inside it,
 * briefly, to route and count packets. Nothing waits while holding either.
 *
 * <p>Imports {@code fabric}, {@code mad}, {@code topology}, {@code device} and {@code
 * io.ibemu.kernel}'s {@code Errno} and {@code ProcessVm} (the caller's memory); imported by {@code
 * uverbs}, {@code nldev} and {@code cli}, never by the fabric.
 */
package io.ibemu.emulator.hca;
