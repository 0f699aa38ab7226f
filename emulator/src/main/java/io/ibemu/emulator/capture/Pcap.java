package io.ibemu.emulator.capture;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Locale;

/**
 * A pcap stream (the classic libpcap format, nanosecond timestamps) of InfiniBand frames, each
 * a packet from its LRH through its VCRC. Two link types: {@link Linktype#ERF}, each packet in
 * an ERF record of type INFINIBAND, as ibdump writes (the one Debian 12's Wireshark 4.0 reads:
 * it maps no pcap link type to its InfiniBand dissector but ERF's), and {@link
 * Linktype#INFINIBAND}, tcpdump.org's LINKTYPE_INFINIBAND with the bare packet.
 */
public final class Pcap {
    /** The nanosecond-resolution pcap magic (pcap-savefile(5)). */
    static final int MAGIC_NANOS = 0xA1B23C4D;
    static final int SNAPLEN = 65535;
    /** ERF record type 21: InfiniBand, the packet from its LRH (Endace ERF types). */
    static final int ERF_TYPE_INFINIBAND = 21;
    static final int ERF_HEADER = 16;
    /** ERF flags: varying-length record; the low two bits name the capture interface. */
    static final int ERF_FLAG_VLEN = 0x04;

    /** What each record holds (the file header's network field). */
    public enum Linktype {
        ERF(197), INFINIBAND(247);

        private final int code;

        Linktype(int code) {
            this.code = code;
        }

        public int code() {
            return code;
        }

        /** ERF or INFINIBAND, any case; refused with the choices named. */
        public static Linktype parse(String s) {
            try {
                return valueOf(s.toUpperCase(Locale.ROOT));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("link type '" + s + "': expected ERF (ibdump's, read by Wireshark 4.0)"
                        + " or INFINIBAND (LINKTYPE_INFINIBAND, 247)");
            }
        }
    }

    private final OutputStream out;
    private final Linktype linktype;

    /** Writes the file header now. */
    public Pcap(OutputStream out, Linktype linktype) throws IOException {
        this.out = out;
        this.linktype = linktype;
        ByteBuffer h = ByteBuffer.allocate(24).order(ByteOrder.LITTLE_ENDIAN);
        h.putInt(MAGIC_NANOS).putShort((short) 2).putShort((short) 4).putInt(0).putInt(0).putInt(SNAPLEN)
                .putInt(linktype.code());
        out.write(h.array());
        out.flush();
    }

    /** One record; flushed, so a reader on a pipe sees each packet as it comes. */
    public void write(Frame f) throws IOException {
        byte[] packet = f.octets();
        int length = packet.length + (linktype == Linktype.ERF ? ERF_HEADER : 0);
        ByteBuffer h = ByteBuffer.allocate(16).order(ByteOrder.LITTLE_ENDIAN);
        h.putInt((int) (f.epochNanos() / 1_000_000_000L)).putInt((int) (f.epochNanos() % 1_000_000_000L))
                .putInt(length).putInt(length);
        out.write(h.array());
        if (linktype == Linktype.ERF) {
            out.write(erfHeader(f, length));
        }
        out.write(packet);
        out.flush();
    }

    /**
     * The ERF record header: a 32.32 fixed-point little-endian timestamp, type, flags (interface
     * 0 for a packet the port sent, 1 for one it received), record length, loss counter, wire length.
     */
    private static byte[] erfHeader(Frame f, int recordLength) {
        long seconds = f.epochNanos() / 1_000_000_000L;
        long fraction = ((f.epochNanos() % 1_000_000_000L) << 32) / 1_000_000_000L;
        ByteBuffer e = ByteBuffer.allocate(ERF_HEADER);
        e.order(ByteOrder.LITTLE_ENDIAN).putLong(seconds << 32 | fraction);
        e.order(ByteOrder.BIG_ENDIAN);
        e.put((byte) ERF_TYPE_INFINIBAND).put((byte) (ERF_FLAG_VLEN | (f.outbound() ? 0 : 1)))
                .putShort((short) recordLength).putShort((short) 0).putShort((short) f.octets().length);
        return e.array();
    }
}
