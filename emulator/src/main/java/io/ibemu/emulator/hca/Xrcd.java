package io.ibemu.emulator.hca;

/**
 * An XRC domain (IBA 14.2? XRC annex A14): groups XRC SRQs and XRC target QPs. Which file or
 * inode shares it is the ABI layer's business; the model counts its users for EBUSY at close.
 */
public final class Xrcd {
    private final Hca hca;
    private final VerbsOwner owner;
    /** SRQs and target QPs in the domain; under the model lock. */
    int users;
    boolean closed;

    Xrcd(Hca hca, VerbsOwner owner) {
        this.hca = hca;
        this.owner = owner;
    }

    public Hca hca() {
        return hca;
    }

    public VerbsOwner owner() {
        return owner;
    }
}
