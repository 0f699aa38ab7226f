/**
 * C structs of the user/kernel ABI declared as data: a {@code CStruct} lists a struct's members in
 * the uapi header's order with their C types and computes the x86_64 offsets, each member a {@code
 * CField}; {@code Ioc} is the kernel's {@code _IOC} encoding of ioctl numbers. It knows no
 * InfiniBand and imports nothing of ibemu; the device rooms that decode what a program writes
 * ({@code umad}, {@code uverbs}) import it.
 */
package io.ibemu.emulator.abi;
