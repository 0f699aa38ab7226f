/**
 * Packet capture: a port's packets as they cross its cable, encoded as on the wire (LRH through
 * VCRC, one codec) and written as pcap with LINKTYPE_INFINIBAND, as ibdump does for a
 * ConnectX port. Depends on the fabric only; the fabric knows this room as a {@link
 * io.ibemu.emulator.fabric.PacketTap} and pays one null check per hop when no one captures.
 */
package io.ibemu.emulator.capture;
