/**
 * What every room of ibemu shares of the kernel boundary it emulates: {@link io.ibemu.kernel.Errno}
 * (a failed system call with the errno the kernel returns), {@link io.ibemu.kernel.ProcessMemory}
 * and {@link io.ibemu.kernel.ProcessVm} (a calling process's memory, as copy_to_user and
 * copy_from_user reach it, through process_vm_readv/writev), and {@link io.ibemu.kernel.Fatal} (the
 * daemon's one stop-whole path) and {@link io.ibemu.kernel.CStruct} (a C struct of the user/kernel
 * ABI declared once as its members, offsets computed; FUSE's, umad's and uverbs' structures are
 * all declared so). The FUSE and CUSE transports, the seccomp supervisor, the sysfs
 * tree, udev and the HCA model all stand on this package, and it stands on nothing of theirs:
 * the model can fail a verb with the kernel's errno and reach a process's memory without knowing
 * which transport carried the call.
 */
package io.ibemu.kernel;
