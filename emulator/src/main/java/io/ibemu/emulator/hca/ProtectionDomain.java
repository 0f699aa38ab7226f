package io.ibemu.emulator.hca;

/**
 * A protection domain (IBA 10.2.3): MRs, MWs, QPs, SRQs and AHs belong to one, and a QP reaches
 * only the memory of its own PD. Counts its users so dealloc fails with EBUSY while any is left.
 */
public final class ProtectionDomain {
    private final Hca hca;
    private final VerbsOwner owner;
    /** Objects created in this PD and not destroyed (ib_pd usecnt); under the model lock. */
    int users;
    boolean destroyed;

    ProtectionDomain(Hca hca, VerbsOwner owner) {
        this.hca = hca;
        this.owner = owner;
    }

    public Hca hca() {
        return hca;
    }

    /** How many objects use it now (usecnt), read under the model lock. */
    public int users() {
        synchronized (hca().lock()) {
            return users;
        }
    }

    public VerbsOwner owner() {
        return owner;
    }
}
