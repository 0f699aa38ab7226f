package io.ibemu.emulator.hca;

/** A scatter/gather element (ibv_sge): {@code length} bytes at virtual address {@code addr} of the MR {@code lkey}. */
public record Sge(long addr, int length, int lkey) {
    /** The length as the unsigned 32-bit count it is on the wire. */
    public long unsignedLength() {
        return length & 0xFFFFFFFFL;
    }
}
