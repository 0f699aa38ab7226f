/**
 * {@code /dev/infiniband/umadN} as {@code drivers/infiniband/core/user_mad.c} serves it: a {@code
 * UmadFile} per open ({@code struct ib_umad_file}: up to 32 agents, the receive queue read()
 * drains, the send list write() checks for duplicates), the user MAD header and the
 * agent-registration structs. A file is a devfs {@code MessageFile}: served on FUSE, or diverted
 * into the supervisor's socket pair. Imports {@code agent} (the MAD layer it posts to and hears
 * from), {@code fabric}, {@code abi}, devfs's device model ({@code io.ibemu.devfs.device}) and
 * {@code io.ibemu.kernel}; {@code cli} serves it.
 */
package io.ibemu.emulator.umad;
