package io.ibemu.emulator.uverbs;

import io.ibemu.emulator.uverbs.provider.Driver;
import io.ibemu.emulator.uverbs.provider.qib.RvtDriver;
import io.ibemu.emulator.uverbs.provider.rxe.RxeDriver;

import java.util.Arrays;
import java.util.Locale;

/**
 * Which provider library the verbs devices bind and which driver ABI they serve it: one HCA
 * model under each, the profile only choosing the driver half ({@link Driver}) and the
 * {@code abi_version} libibverbs hands the provider.
 */
public enum ProviderProfile {
    /** ipathverbs at driver ABI 1: every verb, polling and posting receives included, is a write(). */
    QIB1(RvtDriver.QIB_DRIVER_ID, 1),
    /** ipathverbs at driver ABI 2: CQ, RQ and SRQ rings mapped (rdmavt), polled and posted with no system call. */
    QIB2(RvtDriver.QIB_DRIVER_ID, 2),
    /**
     * The rxe provider at its driver ABI: CQ, send, receive and SRQ queues mapped (rxe_queue),
     * sends a doorbell write, receives and polls with no system call, the extended QP and CQ.
     */
    RXE(RxeDriver.driverId(), RxeDriver.abiVersion());

    public static final ProviderProfile DEFAULT = QIB1;


    private final int driverId;
    private final int abiVersion;

    ProviderProfile(int driverId, int abiVersion) {
        this.driverId = driverId;
        this.abiVersion = abiVersion;
    }

    /**
     * enum rdma_driver_id of the driver the devices present: RDMA netlink's UVERBS_DRIVER_ID,
     * which libibverbs matches providers by first, and what ioctl headers must carry.
     */
    public int driverId() {
        return driverId;
    }

    /** uverbsN/abi_version and RDMA netlink's ABI: the driver ABI the provider is told. */
    public int abiVersion() {
        return abiVersion;
    }

    /** Whether the profile's queues live in memory the program maps (none where no file can be mapped). */
    public boolean mapsQueues() {
        return this != QIB1;
    }

    /** The profile as the command line names it. */
    public String label() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** A device's driver half (one per device: rxe's AH numbers are the device's). */
    Driver driver() {
        return this == RXE ? new RxeDriver() : new RvtDriver();
    }

    /** The profile of {@code label} (qib1, qib2, rxe), or null. */
    public static ProviderProfile of(String label) {
        return Arrays.stream(values()).filter(p -> p.label().equals(label)).findFirst().orElse(null);
    }
}
