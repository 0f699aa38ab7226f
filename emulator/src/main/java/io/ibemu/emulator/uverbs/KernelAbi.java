package io.ibemu.emulator.uverbs;

import io.ibemu.emulator.uverbs.ioctl.Kernel;
import io.ibemu.emulator.uverbs.ioctl.Uapi;

import java.util.ArrayList;
import java.util.List;

/**
 * Which kernel's verbs ABI a device presents (--kernel-abi): {@code write-only}, a kernel
 * without RDMA_VERBS_IOCTL (ENOTTY; libibverbs then uses write() for everything), or one
 * release's ioctl tree ({@link Kernel}). The write() commands are the same in all of them.
 */
public record KernelAbi(String name, Kernel kernel) {

    public static final String WRITE_ONLY = "write-only";

    /** The newest release: what a device presents unless told otherwise. */
    public static KernelAbi newest() {
        return new KernelAbi(Kernel.newest().release(), Kernel.newest());
    }

    /** The profile called {@code name}; IllegalArgumentException with the names there are. */
    public static KernelAbi named(String name) {
        if (name.equals(WRITE_ONLY)) {
            return new KernelAbi(WRITE_ONLY, null);
        }
        for (Kernel k : Kernel.values()) {
            if (k.release().equals(name)) {
                return new KernelAbi(name, k);
            }
        }
        throw new IllegalArgumentException("--kernel-abi " + name + ": one of " + String.join(", ", names()));
    }

    public static List<String> names() {
        List<String> names = new ArrayList<>(List.of(WRITE_ONLY));
        for (Kernel k : Kernel.values()) {
            names.add(k.release());
        }
        return names;
    }

    /** The ioctl tree this profile serves, or null for write-only. */
    Uapi<UverbsFile> tree() {
        return kernel == null ? null : UverbsTree.TREE.as(kernel);
    }
}
