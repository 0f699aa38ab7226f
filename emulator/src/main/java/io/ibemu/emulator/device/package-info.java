/**
 * A local HCA, the fabric node that is "this host": its device name (renamed over netlink), PCI
 * slot, the numbers of its umad and issm devices, and the identity a driver reports ({@code
 * HcaIdentity}: fw_ver, hca_type, board_id; optionally from an identity file). Imports only {@code
 * fabric}; read by the rooms that show a device ({@code hca}, {@code sysfs}, {@code nldev}) and
 * built by {@code cli}.
 */
package io.ibemu.emulator.device;
