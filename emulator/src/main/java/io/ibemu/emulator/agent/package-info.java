/**
 * The kernel's MAD layer ({@code drivers/infiniband/core/mad.c}, {@code smi.c}, {@code
 * mad_rmpp.c}, {@code agent.c}) over the emulated fabric: a {@code MadLayer} per fabric, a {@code
 * MadPort} per port with its registered agents, sends with their timeouts and retries, RMPP
 * windows and reassembly in one place ({@code Rmpp}), the directed-route checks ({@code Smi}), and the {@code Wire} and {@code
 * SwitchRelay} that carry each MAD cable by cable through the switches to a node's agents ({@code
 * fabric.Node#process}) or to a client. Every header field is read through {@code mad}'s codecs. Everything runs under the fabric lock. It imports {@code
 * fabric}, {@code mad}, {@code topology} and {@code io.ibemu.kernel}'s {@code Errno}; its clients
 * ({@code MadAgentClient}) are the umad files ({@code umad}) and the daemon that builds it ({@code
 * cli}).
 */
package io.ibemu.emulator.agent;
