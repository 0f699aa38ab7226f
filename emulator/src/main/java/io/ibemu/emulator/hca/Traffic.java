package io.ibemu.emulator.hca;

import io.ibemu.emulator.fabric.LinkPacket;
import io.ibemu.emulator.fabric.PacketTap;
import io.ibemu.emulator.fabric.Port;
import java.util.List;
import java.util.function.Supplier;

/**
 * The packets one message becomes on the wire (segmented by the path MTU, IBA 9.7.2): their
 * number and their size in 4-octet words from LRH through ICRC, as PortXmitData counts them
 * (IBA 16.1.3.5). Counted in bulk per hop. {@code frames} builds the packets themselves, only
 * for a captured port.
 */
record Traffic(long packets, long words, Supplier<List<LinkPacket>> frames) {
    static final int LRH = 8;
    static final int GRH = 40;
    static final int BTH = 12;
    static final int RETH = 16;
    static final int AETH = 4;
    static final int DETH = 8;
    static final int IMM = 4;
    static final int ATOMIC_ETH = 28;
    static final int ATOMIC_ACK_ETH = 8;
    static final int ICRC = 4;

    /**
     * {@code length} payload bytes in packets of at most {@code mtu}; {@code firstHeaders} extra
     * header octets on the first packet (RETH, DETH...), {@code lastHeaders} on the last
     * (ImmDt), {@code everyHeaders} on each (GRH, DETH).
     */
    static Traffic of(long length, int mtu, int everyHeaders, int firstHeaders, int lastHeaders) {
        long packets = Math.max(1, (length + mtu - 1) / mtu);
        long headerOctets = packets * (LRH + BTH + ICRC + everyHeaders) + firstHeaders + lastHeaders;
        // each packet's payload is padded to 4 octets; only the last can be short (mtu is a multiple of 4)
        long last = length - (packets - 1) * mtu;
        long padded = (packets - 1) * mtu + ((last + 3) & ~3L);
        return new Traffic(packets, (headerOctets + padded + 3) / 4, List::of);
    }

    /** One packet with no payload beyond its headers (ACK, READ request, atomic). */
    static Traffic single(int headers) {
        return new Traffic(1, (LRH + BTH + ICRC + headers + 3) / 4, List::of);
    }

    /** {@code sent} of this traffic's packets (a retransmission from packet k, a lossy burst), words pro rata. */
    Traffic part(long sent) {
        return sent == packets ? this : new Traffic(sent, words * sent / Math.max(1, packets), frames);
    }

    /** The same traffic, whose packets {@code build} makes (once, at the first captured hop). */
    Traffic withFrames(Supplier<List<LinkPacket>> build) {
        return new Traffic(packets, words, new Supplier<>() {
            private List<LinkPacket> made;

            @Override
            public List<LinkPacket> get() {
                if (made == null) {
                    made = build.get();
                }
                return made;
            }
        });
    }

    /** Hands the packets to the taps of a hop's ports (either may be null). */
    void captured(Port out, PacketTap sent, Port in, PacketTap heard) {
        for (LinkPacket p : frames.get()) {
            if (sent != null) {
                sent.crossed(out, true, p);
            }
            if (heard != null) {
                heard.crossed(in, false, p);
            }
        }
    }

    void count(Port out, Port in, boolean multicast) {
        Port.Counter xmitCast = multicast ? Port.Counter.MULTICAST_XMIT_PKTS : Port.Counter.UNICAST_XMIT_PKTS;
        Port.Counter rcvCast = multicast ? Port.Counter.MULTICAST_RCV_PKTS : Port.Counter.UNICAST_RCV_PKTS;
        out.count(Port.Counter.XMIT_DATA, words);
        out.count(Port.Counter.XMIT_PKTS, packets);
        out.count(xmitCast, packets);
        in.count(Port.Counter.RCV_DATA, words);
        in.count(Port.Counter.RCV_PKTS, packets);
        in.count(rcvCast, packets);
    }
}
