/**
 * The kernel's {@code _IOC} encoding of ioctl numbers ({@code Ioc}) for the device rooms that
 * declare their commands ({@code umad}, {@code uverbs}). The structs those commands carry are
 * declared as {@link io.ibemu.kernel.CStruct}s, the one C-struct mechanism, which devfs's FUSE
 * protocol shares. It knows no InfiniBand.
 */
package io.ibemu.emulator.abi;
