/**
 * qib's driver half, which is rdmavt's (drivers/infiniband/sw/rdmavt): the CQ and receive rings
 * ipathverbs maps at driver ABI 2 ({@code rvt_cq_wc}, {@code rvt_rwq}), their layouts declared
 * once in {@link io.ibemu.emulator.uverbs.provider.qib.Rvt}, and the udata rule that decides per
 * create whether a queue is mapped.
 */
package io.ibemu.emulator.uverbs.provider.qib;
