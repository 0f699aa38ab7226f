/**
 * {@code /dev/infiniband/issmN} ({@code ib_umad_sm_open}/{@code _close}): an open sets the port's
 * IsSM capability bit, the last close clears it, one holder at a time. Imports {@code fabric} and
 * devfs's device model ({@code io.ibemu.devfs.device}: {@code CharDevice}) and {@code
 * io.ibemu.kernel} ({@code Errno}); {@code cli} serves it.
 */
package io.ibemu.emulator.issm;
