package io.ibemu.emulator.rdmacm;

/**
 * {@code struct ucma_multicast}: one join of a context, numbered in the device's multicast table;
 * its uid and id are what its MULTICAST_JOIN/ERROR events carry. The file's monitor guards the
 * count of its events read.
 */
final class UcmaMulticast {
    final int id;
    final long uid;
    final UcmaContext context;
    final SockAddr address;
    int eventsReported;

    UcmaMulticast(int id, long uid, UcmaContext context, SockAddr address) {
        this.id = id;
        this.uid = uid;
        this.context = context;
        this.address = address;
    }
}
