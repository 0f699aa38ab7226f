/**
 * The driver half of the verbs ABI, one room per provider format over the one HCA model: what
 * a driver adds after the core structs of each create (udata) and the queues it shares with
 * the program through the uverbs descriptor's mapped memory. {@link
 * io.ibemu.emulator.uverbs.provider.Driver} is what the command layer (write() today, the ioctl
 * tree's UHW attributes alike) calls; {@link io.ibemu.emulator.uverbs.provider.QueueMemory} keeps
 * an open file's memory and the mmaps owed on it (rvt_mmap, rxe_mmap). Arrows go down only: to
 * the model's ring interfaces ({@link io.ibemu.emulator.hca.CompletionRing}, {@link
 * io.ibemu.emulator.hca.ReceiveRing}) and to devfs' shared memory.
 */
package io.ibemu.emulator.uverbs.provider;
