package io.ibemu.emulator.umad;

import java.util.Arrays;

/**
 * struct ib_umad_packet: what waits in a file's receive queue and in its send list. A
 * {@link Sent} keeps the writer's own header (the send list's duplicate check and a timeout
 * echo need all of it); a {@link Received} keeps only the fields recv_handler fills and the
 * MAD without its trailing zeros, so an unread reply costs a small fraction of its 256 bytes
 * plus a full header.
 */
sealed interface UmadPacket {

    UmadHeader header();

    /** The message as read() returns it, at its full length. */
    byte[] data();

    /** A received MAD (copy_recv_mad), not a send that timed out (copy_send_mad). */
    boolean received();

    /** A send, or a timed-out send coming back to its writer: status ETIMEDOUT, the 24-byte MAD header. */
    record Sent(UmadHeader header, byte[] data) implements UmadPacket {
        @Override
        public boolean received() {
            return false;
        }
    }

    /** recv_handler's packet: agent id, source address and the message, stored trimmed. */
    record Received(int id, int hdrLength, int length, byte[] trimmed, int srcQp, int slid, byte sl, byte pathBits,
                    short pkeyIndex) implements UmadPacket {

        static Received of(int id, int hdrSize, byte[] message, int srcQp, int slid, int sl, int pathBits, int pkeyIndex) {
            int end = message.length;
            while (end > 0 && message[end - 1] == 0) {
                end--;
            }
            byte[] trimmed = end == message.length ? message : Arrays.copyOf(message, end);
            return new Received(id, hdrSize + message.length, message.length, trimmed, srcQp, slid, (byte) sl, (byte) pathBits,
                    (short) pkeyIndex);
        }

        @Override
        public UmadHeader header() {
            return new UmadHeader(id, 0, 0, 0, hdrLength, srcQp, 0, slid, sl & 0xff, pathBits & 0xff, false, 0, 0, 0,
                    new byte[16], 0, pkeyIndex & 0xffff);
        }

        @Override
        public byte[] data() {
            return trimmed.length == length ? trimmed : Arrays.copyOf(trimmed, length);
        }

        @Override
        public boolean received() {
            return true;
        }
    }
}
