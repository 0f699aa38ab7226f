/**
 * The InfiniBand Communication Manager (IBA vol 1 ch. 12; the kernel's
 * drivers/infiniband/core/cm.c, {@code ib_cm}): {@link io.ibemu.emulator.cm.Cm} registers a CM
 * agent (class 0x07, version 2) on QP1 of every local HCA port and runs the connection state
 * machine of each {@link io.ibemu.emulator.cm.CmId} — REQ/MRA/REJ/REP/RTU, DREQ/DREP, timewait,
 * SIDR — with the kernel's timeouts, retries and reject reasons. Consumers ({@code rdmacm})
 * receive {@link io.ibemu.emulator.cm.CmEvent}s through a {@link io.ibemu.emulator.cm.CmHandler}
 * on the CM's own thread. Imports {@code hca}, {@code agent}, {@code fabric}, {@code mad},
 * {@code device} and {@code kernel}; never {@code uverbs} or {@code rdmacm}. Imported by {@code cli}
 * (which starts it) and {@code rdmacm} (its consumer, as cma.c is ib_cm's).
 */
package io.ibemu.emulator.cm;
