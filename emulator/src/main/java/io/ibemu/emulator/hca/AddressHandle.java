package io.ibemu.emulator.hca;

/** An address handle (IBA 10.2.2): an {@link AhAttributes} in a PD, named by UD work requests. */
public final class AddressHandle {
    private final ProtectionDomain pd;
    private final AhAttributes attributes;

    AddressHandle(ProtectionDomain pd, AhAttributes attributes) {
        this.pd = pd;
        this.attributes = attributes;
    }

    public ProtectionDomain pd() {
        return pd;
    }

    public AhAttributes attributes() {
        return attributes;
    }
}
