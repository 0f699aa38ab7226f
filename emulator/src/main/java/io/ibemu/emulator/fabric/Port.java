package io.ibemu.emulator.fabric;

import io.ibemu.emulator.mad.Mad;
import io.ibemu.emulator.mad.MellanoxAttribute;
import io.ibemu.emulator.mad.PortCounters;
import io.ibemu.emulator.mad.PortCountersExtended;
import io.ibemu.emulator.mad.PortInfo;
import io.ibemu.emulator.topology.LinkSpeed;
import io.ibemu.emulator.topology.LinkWidth;
import io.ibemu.emulator.topology.NodeType;
import java.util.Arrays;
import java.util.Objects;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * One port of a node: its cable, its link state and the PortInfo, P_Key, GUIDInfo, SLtoVL and
 * VLArbitration state its SMA serves, and its PMA counters. The accessors read live values
 * without the lock; every change happens under {@link Fabric#lock()} (the public mutators take
 * it themselves). For a switch, port 0 is the management port (LID, M_Key, SM fields, GUIDs);
 * its external ports carry those fields as zero, as the spec reserves them there.
 */
public final class Port {
    /** The counters a port keeps, in PortCounters CounterSelect bit order, then the rest. */
    public enum Counter {
        SYMBOL_ERRORS(16, "SymbolErrorCounter"), LINK_ERROR_RECOVERY(8, "LinkErrorRecoveryCounter"),
        LINK_DOWNED(8, "LinkDownedCounter"), RCV_ERRORS(16, "PortRcvErrors"),
        RCV_REMOTE_PHYSICAL_ERRORS(16, "PortRcvRemotePhysicalErrors"),
        RCV_SWITCH_RELAY_ERRORS(16, "PortRcvSwitchRelayErrors"), XMIT_DISCARDS(16, "PortXmitDiscards"),
        XMIT_CONSTRAINT_ERRORS(8, "PortXmitConstraintErrors"), RCV_CONSTRAINT_ERRORS(8, "PortRcvConstraintErrors"),
        LOCAL_LINK_INTEGRITY_ERRORS(4, "LocalLinkIntegrityErrors"),
        EXCESSIVE_BUFFER_OVERRUN_ERRORS(4, "ExcessiveBufferOverrunErrors"), VL15_DROPPED(16, "VL15Dropped"),
        /** In units of 4 octets, as PortXmitData counts (IBA 16.1.3.5). */
        XMIT_DATA(32, "PortXmitData"),
        RCV_DATA(32, "PortRcvData"), XMIT_PKTS(32, "PortXmitPkts"), RCV_PKTS(32, "PortRcvPkts"),
        XMIT_WAIT(32, "PortXmitWait"),
        UNICAST_XMIT_PKTS(64, "PortUnicastXmitPkts"), UNICAST_RCV_PKTS(64, "PortUnicastRcvPkts"),
        MULTICAST_XMIT_PKTS(64, "PortMulticastXmitPkts"), MULTICAST_RCV_PKTS(64, "PortMulticastRcvPkts");

        private final int portCountersWidth;
        private final String perfName;

        Counter(int portCountersWidth, String perfName) {
            this.portCountersWidth = portCountersWidth;
            this.perfName = perfName;
        }

        /** The width PortCounters reports it in, saturating there (64: only in PortCountersExtended). */
        public int portCountersWidth() {
            return portCountersWidth;
        }

        /** The field name perfquery prints (libibmad's fields.c). */
        public String perfName() {
            return perfName;
        }

        /** The largest value the counter holds: its widest field (PortCountersExtended's 64 bits, kept signed). */
        public long maxValue() {
            boolean extended = Arrays.asList(EXTENDED_SELECT).contains(this);
            return extended || portCountersWidth == 64 ? Long.MAX_VALUE : (1L << portCountersWidth) - 1;
        }
    }

    /** PortCountersExtended CounterSelect bit i clears this counter (IBA 16.1.4.11). */
    static final Counter[] EXTENDED_SELECT = {Counter.XMIT_DATA, Counter.RCV_DATA, Counter.XMIT_PKTS,
        Counter.RCV_PKTS, Counter.UNICAST_XMIT_PKTS, Counter.UNICAST_RCV_PKTS, Counter.MULTICAST_XMIT_PKTS,
        Counter.MULTICAST_RCV_PKTS};

    /** GID prefix before an SM sets one: the link-local fe80::/64 (IBA 4.1.1). */
    static final long DEFAULT_SUBNET_PREFIX = 0xFE80000000000000L;
    static final int GUID_CAP = 8;
    static final int PARTITION_CAP = 64;
    private static final long[] NO_GUIDS = new long[0];
    /** The default partition in entry 0 (IBA 10.9.1.2); never written in place. */
    private static final int[] POWER_ON_PKEYS = new int[PARTITION_CAP];
    private static final int[] POWER_ON_SL_TO_VL = new int[16];
    /** VLs 0-7 at weight 4 in the low table, weight 0 in the high one, as before any SM writes them. */
    private static final int[] POWER_ON_VL_ARBITRATION_LOW = new int[32];
    private static final int[] POWER_ON_VL_ARBITRATION_HIGH = new int[32];

    static {
        POWER_ON_PKEYS[0] = Port.DEFAULT_PKEY;
        for (int i = 0; i < 8; i++) {
            POWER_ON_VL_ARBITRATION_LOW[i] = i << 8 | 4;
            POWER_ON_VL_ARBITRATION_HIGH[i] = i << 8;
        }
    }
    static final int DEFAULT_PKEY = 0xFFFF;
    static final int MTU_4096 = 5;
    /** VL0-7, as ibsim's ports and ConnectX report. */
    static final int VL_CAP = 4;
    static final int VL_ARBITRATION_CAP = 8;
    /** ConnectX/qib-like: traps, APM, SL mapping, system image GUID, CM, vendor classes,
     *  capability-mask notices, client reregistration. */
    static final int CA_CAPABILITY_MASK = PortInfo.CAP_HAS_TRAP | PortInfo.CAP_HAS_AUTOMATIC_MIGRATION
            | PortInfo.CAP_HAS_SL_MAP | PortInfo.CAP_HAS_SYSTEM_IMAGE_GUID | PortInfo.CAP_HAS_COMMUNICATION_MANAGEMENT
            | PortInfo.CAP_HAS_VENDOR_CLASS | PortInfo.CAP_HAS_CAPABILITY_MASK_NOTICE
            | PortInfo.CAP_HAS_CLIENT_REREGISTRATION;
    static final int SWITCH_PORT0_CAPABILITY_MASK = PortInfo.CAP_HAS_TRAP | PortInfo.CAP_HAS_SL_MAP
            | PortInfo.CAP_HAS_SYSTEM_IMAGE_GUID | PortInfo.CAP_HAS_VENDOR_CLASS
            | PortInfo.CAP_HAS_CAPABILITY_MASK_NOTICE;

    private final Node node;
    private final int number;
    private volatile long guid;
    /** The other end of the cable, plugged or pulled; null without one. */
    private volatile Port cable;
    /** The other end while the cable is plugged in: what the wire crosses. */
    private volatile Port peer;
    private LinkWidth trainedWidth = LinkWidth.X4;
    private LinkSpeed trainedSpeed = LinkSpeed.QDR;

    // link
    volatile PortState state = PortState.DOWN;
    volatile PhysPortState physicalState = PhysPortState.POLLING;
    volatile LinkWidth activeWidth = LinkWidth.X1;
    volatile LinkSpeed activeSpeed = LinkSpeed.SDR;
    volatile int linkWidthSupported;
    volatile int linkWidthEnabled;
    volatile int linkSpeedSupported = 7;
    volatile int linkSpeedEnabled = 7;
    volatile int linkSpeedExtSupported;
    volatile int linkSpeedExtEnabled;
    volatile int linkDownDefaultState = PhysPortState.POLLING.code();
    /** Mellanox ExtendedPortInfo LinkSpeedEnabled: bit 0 is FDR10. */
    volatile int fdr10Enabled;
    /** PortInfoExtended FEC modes enabled, indexed by {@link Fec} ordinal. */
    volatile int[] fecEnabled = new int[Fec.values().length];
    /** FECModeActive: what the link trained with. */
    volatile int fecActive = Fec.NO_FEC;

    // subnet management
    volatile long mKey;
    volatile int mKeyProtectBits;
    volatile int mKeyLeasePeriod;
    volatile long subnetPrefix = DEFAULT_SUBNET_PREFIX;
    volatile int lid;
    volatile int lmc;
    volatile int smLid;
    volatile int smSl;
    volatile int capabilityMask;
    volatile int capabilityMask2;
    volatile int neighborMtu = MTU_4096;
    volatile int operationalVls = VL_CAP;
    volatile int vlHighLimit;
    volatile int hoqLife;
    volatile int vlStallCount;
    volatile int subnetTimeout;
    volatile int localPhyErrorsThreshold;
    volatile int overrunErrorsThreshold;
    volatile int mKeyViolations;
    volatile int pKeyViolations;
    volatile int qKeyViolations;
    volatile boolean partitionEnforcementInbound;
    volatile boolean partitionEnforcementOutbound;
    volatile boolean filterRawInbound;
    volatile boolean filterRawOutbound;

    // tables, replaced whole on change so readers see a consistent copy
    // (every port starts on the same power-on tables, shared until the first write replaces
    // its own: most switch ports are never written, and a copy each cost ~700 bytes a port)
    volatile int[] pkeys = POWER_ON_PKEYS;
    volatile long[] guids;
    volatile int[] slToVl = POWER_ON_SL_TO_VL;
    /** VLArbitration entries: vl << 8 | weight, 32 each. */
    volatile int[] vlArbitrationLow = POWER_ON_VL_ARBITRATION_LOW;
    volatile int[] vlArbitrationHigh = POWER_ON_VL_ARBITRATION_HIGH;

    private final AtomicLongArray counters = new AtomicLongArray(Counter.values().length);

    // a drop rate set with the control command, applied to packets leaving the port
    private volatile double dropRate;
    /** Only MADs of this attribute id are dropped; -1: all. */
    private volatile int dropAttribute = -1;
    /** With dropAttribute, only MADs of these management classes; empty: any class. */
    private volatile int[] dropClasses = new int[0];
    private SplittableRandom dropRandom;
    /** A capture of this port's packets; null (the usual case) costs the wire one check. */
    private volatile PacketTap tap;

    Port(Node node, int number, long guid) {
        this.node = node;
        this.number = number;
        this.guid = guid;
        boolean managed = isManaged();
        guids = managed ? new long[GUID_CAP] : NO_GUIDS;
        if (managed) {
            guids[0] = guid;
        }
        linkWidthSupported = LinkWidth.X1.code() | LinkWidth.X4.code();
        linkWidthEnabled = linkWidthSupported;
        capabilities();
        if (node.type() == NodeType.SWITCH && number == 0) {
            // the management port is always up (ibsim's smaport; IBA 14.2.5.6 for base port 0)
            state = PortState.ACTIVE;
            physicalState = PhysPortState.LINK_UP;
            activeWidth = LinkWidth.X4;
            activeSpeed = LinkSpeed.SDR;
        }
    }

    /** Attaches the cable, plugged in; the caller trains the link. */
    void cable(Port other, LinkWidth width, LinkSpeed speed) {
        cable = other;
        peer = other;
        trainedWidth = width;
        trainedSpeed = speed;
        linkWidthSupported |= width.code();
        linkWidthEnabled = linkWidthSupported;
        linkSpeedExtSupported = speed.isExtended() ? (speed.linkSpeedExtActive() << 1) - 1 : 0;
        linkSpeedExtEnabled = linkSpeedExtSupported;
        fdr10Enabled = fdr10Supported();
        int[] fec = new int[Fec.values().length];
        for (Fec f : Fec.values()) {
            fec[f.ordinal()] = fecSupported(f);
        }
        fecEnabled = fec;
        capabilities();
        if (node.type() == NodeType.SWITCH) {
            // tools read a switch's speed capabilities from port 0 (ibnetdiscover out_switch_port)
            Port port0 = node.port(0);
            port0.linkSpeedExtSupported |= linkSpeedExtSupported;
            port0.linkSpeedExtEnabled = port0.linkSpeedExtSupported;
            port0.linkWidthSupported |= linkWidthSupported;
            port0.linkWidthEnabled = port0.linkWidthSupported;
            port0.capabilities();
        }
    }

    private void capabilities() {
        int cap2 = 0;
        if ((linkWidthSupported & LinkWidth.X2.code()) != 0) {
            cap2 |= PortInfo.CAP2_IS_LINK_WIDTH_2X_SUPPORTED;
        }
        if ((linkSpeedExtSupported & LinkSpeed.HDR.linkSpeedExtActive()) != 0) {
            cap2 |= PortInfo.CAP2_IS_LINK_SPEED_HDR_SUPPORTED;
        }
        if ((linkSpeedExtSupported & LinkSpeed.NDR.linkSpeedExtActive()) != 0) {
            cap2 |= PortInfo.CAP2_IS_LINK_SPEED_NDR_SUPPORTED;
        }
        if ((cap2 & (PortInfo.CAP2_IS_LINK_SPEED_HDR_SUPPORTED | PortInfo.CAP2_IS_LINK_SPEED_NDR_SUPPORTED)) != 0) {
            // HDR and NDR ports carry their FEC modes in PortInfoExtended and say so
            cap2 |= PortInfo.CAP2_IS_PORT_INFO_EXTENDED_SUPPORTED;
        }
        int cap = switch (node.type()) {
            case SWITCH -> number == 0 ? SWITCH_PORT0_CAPABILITY_MASK : 0;
            default -> CA_CAPABILITY_MASK;
        };
        if (cap != 0 && linkSpeedExtSupported != 0) {
            cap |= PortInfo.CAP_HAS_EXTENDED_SPEEDS;
        }
        if (cap != 0 && cap2 != 0) {
            cap |= PortInfo.CAP_HAS_CAPABILITY_MASK2;
        }
        capabilityMask = cap;
        capabilityMask2 = cap != 0 ? cap2 : 0;
    }

    public Node node() {
        return node;
    }

    public int number() {
        return number;
    }

    public long guid() {
        return guid;
    }

    /**
     * The port at the other end of a plugged-in cable, whatever the link's state: what a packet
     * leaving this port reaches. Empty without a cable or while the cable is cut.
     */
    public Optional<Port> peer() {
        return Optional.ofNullable(peer);
    }

    /** The other end of this port's cable, plugged in or cut; empty without a cable. */
    public Optional<Port> cableEnd() {
        return Optional.ofNullable(cable);
    }

    /** Whether the port has a cable that is pulled out (cut with the control command). */
    public boolean isCut() {
        return cable != null && peer == null;
    }

    /** The width the link trains to while it is up (the cable's and both ends' best). */
    public LinkWidth trainedWidth() {
        return trainedWidth;
    }

    public LinkSpeed trainedSpeed() {
        return trainedSpeed;
    }

    public PortState state() {
        return state;
    }

    public PhysPortState physicalState() {
        return physicalState;
    }

    public int lid() {
        return lid;
    }

    public int lmc() {
        return lmc;
    }

    public int smLid() {
        return smLid;
    }

    public int smSl() {
        return smSl;
    }

    public int capabilityMask() {
        return capabilityMask;
    }

    public int capabilityMask2() {
        return capabilityMask2;
    }

    /** PortInfo SubnetTimeout: 4.096 us * 2^value, how long the SM lets a trap go unanswered. */
    public int subnetTimeout() {
        return subnetTimeout;
    }

    public long subnetPrefix() {
        return subnetPrefix;
    }

    public LinkWidth activeWidth() {
        return activeWidth;
    }

    public LinkSpeed activeSpeed() {
        return activeSpeed;
    }

    /** The P_Key table (PartitionCap entries, index 0 first). */
    public int[] pkeys() {
        return pkeys.clone();
    }

    /** P_Key table entry {@code index}, without a copy: the table is replaced whole, never written in place. */
    public int pkey(int index) {
        return pkeys[index];
    }

    /** The P_Key table's size (PartitionCap). */
    public int pkeyCount() {
        return pkeys.length;
    }

    /** The GUIDInfo table, [0] = the port GUID; a switch's external ports have only their GUID. */
    public long[] guids() {
        return isManaged() ? guids.clone() : new long[] {guid};
    }

    /** GUIDInfo entry {@code index} of {@link #guids}, without a copy (the table is replaced whole). */
    public long guid(int index) {
        if (!isManaged()) {
            Objects.checkIndex(index, 1);
            return guid;
        }
        return guids[index];
    }

    /** The size of {@link #guids}. */
    public int guidCount() {
        return isManaged() ? guids.length : 1;
    }

    /** The port's own PortInfo, as its SMA would answer a Get arriving on it. */
    public PortInfo portInfo() {
        return portInfo(number, false);
    }

    /** IBA 14.2.5.6: ports that hold LID, M_Key and SM fields (CA and router ports, switch port 0). */
    boolean isManaged() {
        return node.type() != NodeType.SWITCH || number == 0;
    }

    /**
     * Sets then clears CapabilityMask bits (ib_modify_port's set/clear masks, in that order), as
     * opening issm sets IsSM (0x2, IB_PORT_CAP_IS_SM).
     */
    public void setCapabilityBits(int set, int clear) {
        synchronized (node.fabric().lock()) {
            int before = capabilityMask;
            int after = (before | set) & ~clear;
            if (after != before) {
                capabilityMask = after;
                node.fabric().fire(new PortEvent(this, PortEvent.Kind.CAPABILITY_MASK_CHANGE));
            }
        }
    }

    /** One packet of {@code octets} (headers through ICRC) sent, unicast. */
    public void countTransmit(int octets) {
        countTransmit(octets, false);
    }

    public void countTransmit(int octets, boolean multicast) {
        count(Counter.XMIT_DATA, words(octets));
        count(Counter.XMIT_PKTS, 1);
        count(multicast ? Counter.MULTICAST_XMIT_PKTS : Counter.UNICAST_XMIT_PKTS, 1);
    }

    /** One packet of {@code octets} received, unicast. */
    public void countReceive(int octets) {
        countReceive(octets, false);
    }

    public void countReceive(int octets, boolean multicast) {
        count(Counter.RCV_DATA, words(octets));
        count(Counter.RCV_PKTS, 1);
        count(multicast ? Counter.MULTICAST_RCV_PKTS : Counter.UNICAST_RCV_PKTS, 1);
    }

    /** Adds to a counter (errors, waits); thread-safe. */
    public void count(Counter counter, long n) {
        counters.addAndGet(counter.ordinal(), n);
    }

    /**
     * Whether the packet carrying {@code mad} is lost as it leaves this port (a drop rate set
     * with {@link #setDropRate}, or a fault rule: {@link MadFault}; none by default). A lost packet reaches the other end corrupt,
     * which counts it in PortRcvErrors and discards it, as a bad CRC would be (IBA 7.8.4). The
     * draws are pseudo-random from a seed fixed when the rate is set, so a run repeats. Called by
     * the wire with the fabric lock held.
     */
    public boolean dropsOutgoing(byte[] mad) {
        return outgoing(mad).kind() == MadFault.Kind.LOST;
    }

    /**
     * What becomes of the packet carrying {@code mad} as it leaves this port: lost as {@link
     * #dropsOutgoing} says, or duplicated or delayed by a fault rule. Called by the wire with the fabric lock held.
     */
    public MadFault.Fate outgoing(byte[] mad) {
        MadFault.Fate f = dropsByRate(mad) ? MadFault.Fate.LOST : node.fabric().madFault().fate(this, mad);
        if (f.kind() == MadFault.Kind.LOST) {
            lostOnTheWire();
        }
        return f;
    }

    /** The port's own drop rate (ctl drop) decides: the draw is made only for a MAD it applies to. */
    private boolean dropsByRate(byte[] mad) {
        double rate = dropRate;
        if (rate <= 0) {
            return false;
        }
        int attribute = dropAttribute;
        if (attribute >= 0) {
            if (mad.length < Mad.HEADER_SIZE || Mad.attributeId(mad) != attribute) {
                return false;
            }
            int[] classes = dropClasses;
            if (classes.length > 0 && Arrays.stream(classes).noneMatch(c -> c == Mad.mgmtClass(mad))) {
                return false;
            }
        }
        synchronized (this) {
            return rate >= 1 || dropRandom.nextDouble() < rate;
        }
    }

    /** A packet lost leaving this port: the far end counts it in PortRcvErrors. */
    private void lostOnTheWire() {
        Port receiver = peer;
        if (receiver != null) {
            receiver.count(Counter.RCV_ERRORS, 1);
        }
    }

    /**
     * Loses {@code rate} (0..1) of the packets leaving this port; 0 stops losing them. With
     * {@code attributeId} &ge; 0 only MADs of that attribute id are lost, and with
     * {@code mgmtClasses} given only those of these classes (an attribute name means one class).
     * The pseudo-random sequence restarts from a seed of the port's GUID and number.
     */
    public void setDropRate(double rate, int attributeId, int... mgmtClasses) {
        if (!(rate >= 0 && rate <= 1)) {
            throw new IllegalArgumentException("drop rate " + rate + " is not in 0..1");
        }
        synchronized (node.fabric().lock()) {
            synchronized (this) {
                dropRandom = new SplittableRandom(guid * 31 + number);
            }
            dropAttribute = rate > 0 ? attributeId : -1;
            dropClasses = rate > 0 && attributeId >= 0 ? mgmtClasses.clone() : new int[0];
            dropRate = rate;
        }
    }

    /** The capture listening to this port, or null. */
    public PacketTap tap() {
        return tap;
    }

    /** Starts capturing this port; one capture at a time (ibdump's rule for a port). */
    public void startCapture(PacketTap capture) {
        synchronized (node.fabric().lock()) {
            if (tap != null) {
                throw new IllegalStateException(this + " is already being captured");
            }
            tap = capture;
        }
    }

    /** Ends {@code capture}, if it is still the port's. */
    public void stopCapture(PacketTap capture) {
        synchronized (node.fabric().lock()) {
            if (tap == capture) {
                tap = null;
            }
        }
    }

    public double dropRate() {
        return dropRate;
    }

    /** The attribute id drops are limited to, -1 for every packet. */
    public int dropAttribute() {
        return dropAttribute;
    }

    /** Sets a counter to {@code value}, as an error or traffic seen by the port would leave it. */
    public void setCounter(Counter counter, long value) {
        if (value < 0 || value > counter.maxValue()) {
            throw new IllegalArgumentException(counter.perfName() + " holds 0.." + counter.maxValue() + ", not " + value);
        }
        counters.set(counter.ordinal(), value);
    }

    /**
     * The P_Key check of an arriving packet (IBA 10.9.3): the table holds the key's partition
     * and at least one of the two is a full member. A switch's external ports check nothing.
     */
    public boolean acceptsPKey(int pkey) {
        if (!isManaged()) {
            return true;
        }
        int partition = pkey & 0x7FFF;
        for (int entry : pkeys) {
            if (partition != 0 && (entry & 0x7FFF) == partition && ((entry | pkey) & 0x8000) != 0) {
                return true;
            }
        }
        return false;
    }

    /** A packet failed the P_Key check: PortInfo P_KeyViolations counts it, saturating. */
    public void countPKeyViolation() {
        pKeyViolations = Math.min(0xFFFF, pKeyViolations + 1);
    }

    /** A counter's full value since power-on or its last clear. */
    public long counter(Counter counter) {
        return counters.get(counter.ordinal());
    }

    void clear(Counter counter) {
        counters.set(counter.ordinal(), 0);
    }

    /** The data counters count 4-octet words (IBA 16.1.3.5 PortXmitData). */
    private static long words(int octets) {
        return (octets + 3L) >>> 2;
    }

    /** A snapshot as PmaGet(PortCounters) reports it: each counter saturated at its width. */
    public PortCounters counters() {
        return Pma.portCounters(number, rawCounters());
    }

    /** A snapshot as PmaGet(PortCountersExtended) reports it. */
    public PortCountersExtended countersExtended() {
        return Pma.portCountersExtended(number, rawCounters());
    }

    long[] rawCounters() {
        long[] raw = new long[counters.length()];
        for (int i = 0; i < raw.length; i++) {
            raw[i] = counters.get(i);
        }
        return raw;
    }

    /** PortInfo as the SMA answers a Get that arrived on {@code localPortNum}. */
    PortInfo portInfo(int localPortNum, boolean hideMKey) {
        boolean managed = isManaged();
        boolean ext = linkSpeedExtSupported != 0;
        return new PortInfo(
                managed && !hideMKey ? mKey : 0,
                managed ? subnetPrefix : 0,
                managed ? lid : 0,
                managed ? smLid : 0,
                capabilityMask,
                0, // DiagCode: healthy
                managed ? mKeyLeasePeriod : 0,
                localPortNum,
                linkWidthEnabled,
                linkWidthSupported,
                activeWidth.code(),
                linkSpeedSupported,
                state.code(),
                physicalState.code(),
                linkDownDefaultState,
                managed ? mKeyProtectBits : 0,
                managed ? lmc : 0,
                activeSpeed.linkSpeedActive(),
                linkSpeedEnabled,
                neighborMtu,
                managed ? smSl : 0,
                VL_CAP,
                0, // InitType
                vlHighLimit,
                VL_ARBITRATION_CAP,
                VL_ARBITRATION_CAP,
                0, // InitTypeReply
                MTU_4096,
                vlStallCount,
                hoqLife,
                operationalVls,
                partitionEnforcementInbound,
                partitionEnforcementOutbound,
                filterRawInbound,
                filterRawOutbound,
                managed ? mKeyViolations : 0,
                pKeyViolations,
                qKeyViolations,
                managed ? GUID_CAP : 0,
                false, // ClientReregister reads as 0; a Set's response echoes it (Sma)
                0,
                managed ? subnetTimeout : 0,
                managed ? 3 : 0, // RespTimeValue: 4.096 us * 2^3, as qib reports
                localPhyErrorsThreshold,
                overrunErrorsThreshold,
                0,
                0,
                capabilityMask2,
                ext ? activeSpeed.linkSpeedExtActive() : 0,
                linkSpeedExtSupported,
                linkSpeedExtEnabled);
    }

    // ---- link state machine (IBA 7.2, 5.5), under the fabric lock ----

    /** Whether this end lets a link train (not Disabled, not Sleep). */
    private boolean trainable() {
        return physicalState != PhysPortState.DISABLED && physicalState != PhysPortState.SLEEP;
    }

    /** Both ends train: LinkUp, and Init for a port that was Down; otherwise both go Down. */
    void train() {
        if (!isCableEnd()) {
            return;
        }
        if (peer != null && trainable() && peer.trainable() && negotiatedSpeed() != null
                && negotiatedWidth() != null) {
            up();
            peer.up();
        } else {
            down(trainable() ? PhysPortState.POLLING : physicalState);
            if (peer != null) {
                peer.down(peer.trainable() ? PhysPortState.POLLING : peer.physicalState);
            }
        }
    }

    // ---- what the two ends of a link agree on as it trains (IBA 5.6.2: the best both enable) ----

    /** Whether this end enables a speed: PortInfo's masks, FDR10 in Mellanox ExtendedPortInfo. */
    private boolean enables(LinkSpeed s) {
        if (s.isExtended()) {
            return (linkSpeedExtEnabled & s.linkSpeedExtActive()) != 0;
        }
        if (s.isMellanoxFdr10()) {
            return (fdr10Enabled & 1) != 0;
        }
        return (linkSpeedEnabled & s.linkSpeedActive()) != 0;
    }

    /** The fastest speed up to the cable's that both ends enable; null if none (the link stays Polling). */
    private LinkSpeed negotiatedSpeed() {
        LinkSpeed[] all = LinkSpeed.values();
        for (int i = trainedSpeed.ordinal(); i >= 0; i--) {
            if (enables(all[i]) && peer.enables(all[i])) {
                return all[i];
            }
        }
        return null;
    }

    /** The widest width up to the cable's that both ends enable; null if none. */
    private LinkWidth negotiatedWidth() {
        int both = linkWidthEnabled & peer.linkWidthEnabled;
        for (LinkWidth w : new LinkWidth[] {LinkWidth.X12, LinkWidth.X8, LinkWidth.X4, LinkWidth.X2, LinkWidth.X1}) {
            if (w.lanes() <= trainedWidth.lanes() && (both & w.code()) != 0) {
                return w;
            }
        }
        return null;
    }

    /** FDR10 (ExtendedPortInfo bit 0): Mellanox firmware on a cable that runs FDR10 or faster. */
    int fdr10Supported() {
        boolean fast = cable != null && trainedSpeed.ordinal() >= LinkSpeed.FDR10.ordinal();
        return fast && MellanoxAttribute.isMellanoxFirmware(node.vendorId()) ? 1 : 0;
    }

    /** The FEC modes this port supports at a generation: those of the generations its cable reaches. */
    int fecSupported(Fec f) {
        return cable != null && trainedSpeed.ordinal() >= f.speed().ordinal() ? f.supported() : 0;
    }

    /** Whether the port answers PortInfoExtended: it says so in CapabilityMask2 (port 0's, on a switch). */
    boolean hasPortInfoExtended() {
        Port advertiser = node.type() == NodeType.SWITCH ? node.port(0) : this;
        return (advertiser.capabilityMask2 & PortInfo.CAP2_IS_PORT_INFO_EXTENDED_SUPPORTED) != 0;
    }

    /** Enabled speeds, widths or FEC modes changed: a link that is up trains again, both ends (IBA 5.6.2). */
    void retrain() {
        if (physicalState == PhysPortState.LINK_UP) {
            bounce();
        }
    }

    /** The link goes down and trains again (PortState set to Down: IBA 7.2.6). */
    void bounce() {
        if (!isCableEnd()) {
            return;
        }
        down(physicalState == PhysPortState.LINK_UP ? PhysPortState.POLLING : physicalState);
        if (peer != null) {
            peer.down(peer.physicalState == PhysPortState.LINK_UP ? PhysPortState.POLLING : peer.physicalState);
        }
        train();
    }

    /** PortPhysicalState set to Disabled or Polling. */
    void setPhysical(PhysPortState wanted) {
        if (!isCableEnd()) {
            return;
        }
        if (wanted == PhysPortState.DISABLED) {
            down(PhysPortState.DISABLED);
            if (peer != null) {
                peer.down(peer.trainable() ? PhysPortState.POLLING : peer.physicalState);
            }
        } else {
            down(PhysPortState.POLLING);
            train();
        }
    }

    /**
     * Pulls the cable out: both ends lose their peer and go Down/Polling, as a port with nothing
     * on the wire does (LinkDownedCounter, PORT_ERROR and a switch's PortStateChange follow).
     */
    public void cut() {
        synchronized (node.fabric().lock()) {
            if (cable == null) {
                throw new IllegalStateException(this + " has no cable");
            }
            if (peer == null) {
                throw new IllegalStateException(this + ": its cable to " + cable + " is already cut");
            }
            Port other = peer;
            peer = null;
            other.peer = null;
            down(trainable() ? PhysPortState.POLLING : physicalState);
            other.down(other.trainable() ? PhysPortState.POLLING : other.physicalState);
        }
    }

    /** Plugs a cut cable back in: both ends train to LinkUp/Init (unless one is Disabled). */
    public void restore() {
        synchronized (node.fabric().lock()) {
            if (cable == null) {
                throw new IllegalStateException(this + " has no cable");
            }
            if (peer != null) {
                throw new IllegalStateException(this + ": its cable to " + cable + " is not cut");
            }
            peer = cable;
            cable.peer = this;
            train();
        }
    }

    /** Cuts and forgets the cable (its node leaves the fabric); both ends end up without one. */
    void unplug() {
        if (cable == null) {
            return;
        }
        if (peer != null) {
            cut();
        }
        cable.cable = null;
        cable = null;
    }

    /** Sets the LID and LMC as an SM's PortInfo Set would (LID_CHANGE); managed ports only. */
    public void setLid(int newLid, int newLmc) {
        if (!isManaged()) {
            throw new IllegalStateException(this + " is a switch's external port: the switch's LID is on port 0");
        }
        if (newLid < 0 || newLid >= SwitchTables.MULTICAST_LID_BASE) {
            throw new IllegalArgumentException(String.format("LID %d is not a unicast LID (0..0x%x)", newLid,
                    SwitchTables.MULTICAST_LID_BASE - 1));
        }
        if (newLmc < 0 || newLmc > 7) {
            throw new IllegalArgumentException("LMC " + newLmc + " is not in 0..7");
        }
        synchronized (node.fabric().lock()) {
            if (newLid != lid || newLmc != lmc) {
                lid = newLid;
                lmc = newLmc;
                node.fabric().fire(new PortEvent(this, PortEvent.Kind.LID_CHANGE));
            }
        }
    }

    /** Changes the port GUID and GUIDInfo entry 0 with it (GID 0 changes: GID_CHANGE). */
    void setGuid(long newGuid) {
        guid = newGuid;
        if (isManaged()) {
            long[] table = guids.clone();
            table[0] = newGuid;
            setGuids(table);
        }
    }

    void arm() {
        state = PortState.ARMED;
    }

    void activate() {
        if (state != PortState.ACTIVE) {
            state = PortState.ACTIVE;
            node.fabric().fire(new PortEvent(this, PortEvent.Kind.PORT_ACTIVE));
        }
    }

    private boolean isCableEnd() {
        return !(node.type() == NodeType.SWITCH && number == 0);
    }

    private void up() {
        if (physicalState != PhysPortState.LINK_UP) {
            node.portStateChanged(this);
        }
        physicalState = PhysPortState.LINK_UP;
        activeWidth = negotiatedWidth();
        activeSpeed = negotiatedSpeed();
        Fec fec = Fec.of(activeSpeed);
        fecActive = fec == null ? Fec.NO_FEC
                : fec.negotiate(fecEnabled[fec.ordinal()], peer.fecEnabled[fec.ordinal()]);
        if (state == PortState.DOWN) {
            state = PortState.INIT;
        }
    }

    private void down(PhysPortState phys) {
        PortState was = state;
        if (physicalState == PhysPortState.LINK_UP) {
            node.portStateChanged(this);
        }
        physicalState = phys;
        activeWidth = LinkWidth.X1;
        activeSpeed = LinkSpeed.SDR;
        fecActive = Fec.NO_FEC;
        if (was != PortState.DOWN) {
            state = PortState.DOWN;
            count(Counter.LINK_DOWNED, 1);
            node.fabric().fire(new PortEvent(this, PortEvent.Kind.PORT_ERROR));
        }
    }

    void setPkeys(int[] table) {
        if (!Arrays.equals(table, pkeys)) {
            pkeys = table;
            node.fabric().fire(new PortEvent(this, PortEvent.Kind.PKEY_CHANGE));
        }
    }

    void setGuids(long[] table) {
        if (!Arrays.equals(table, guids)) {
            guids = table;
            node.fabric().fire(new PortEvent(this, PortEvent.Kind.GID_CHANGE));
        }
    }

    @Override
    public String toString() {
        return node.id() + "[" + number + "]";
    }
}
