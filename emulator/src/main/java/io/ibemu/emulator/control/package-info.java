/**
 * Runtime control of a running emulator, like ibsim's console but scriptable: a line protocol on a
 * Unix-domain socket in the instance's state directory ({@link ControlServer}), the commands it
 * understands ({@link Console}) and the client the {@code ctl} subcommand uses ({@link
 * ControlClient}). Every command changes the fabric model the way the event would on real
 * hardware, so port states, counters, SMP answers and sysfs show it. Imports {@code fabric},
 * {@code mad}, {@code topology}, {@code io.ibemu.kernel}'s {@code Errno} and devfs's {@code
 * PrivateSocket} (a listening socket only root reaches); only {@code cli} imports it.
 */
package io.ibemu.emulator.control;
