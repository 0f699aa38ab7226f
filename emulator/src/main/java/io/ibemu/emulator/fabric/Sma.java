package io.ibemu.emulator.fabric;

import static java.util.Map.entry;

import io.ibemu.emulator.mad.GuidInfo;
import io.ibemu.emulator.mad.LinearForwardingTable;
import io.ibemu.emulator.mad.Mad;
import io.ibemu.emulator.mad.MadStatus;
import io.ibemu.emulator.mad.Method;
import io.ibemu.emulator.mad.MgmtClass;
import io.ibemu.emulator.mad.MulticastForwardingTable;
import io.ibemu.emulator.mad.NodeDescription;
import io.ibemu.emulator.mad.PKeyTable;
import io.ibemu.emulator.mad.PortInfo;
import io.ibemu.emulator.mad.SlToVlMappingTable;
import io.ibemu.emulator.mad.SmAttribute;
import io.ibemu.emulator.mad.Smp;
import io.ibemu.emulator.mad.SwitchInfo;
import io.ibemu.emulator.mad.VlArbitrationTable;
import io.ibemu.emulator.topology.NodeType;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Predicate;

/**
 * The subnet management agent of a node (IBA 14.2; the rules as qib_mad.c process_subn and
 * ibsim's sim_mad.c apply them): SubnGet and SubnSet of one attribute each, through a table
 * keyed by attribute id. A Set answers with the attribute as a Get then reads; a Set refused
 * for an invalid field changes nothing.
 */
final class Sma {
    private static final int DATA = Mad.SMP_DATA_OFFSET;

    /** One SMP being answered: what the request says, and the response being built in place. */
    static final class Request {
        final Node node;
        final int inPort;
        final int method;
        final int attributeModifier;
        /** The request's M_Key did not match and the port's protection hides its own (IBA 14.2.4.1). */
        final boolean hideMKey;
        final byte[] response;
        boolean echoClientReregister;

        Request(Node node, int inPort, int method, int attributeModifier, boolean hideMKey, byte[] response) {
            this.node = node;
            this.inPort = inPort;
            this.method = method;
            this.attributeModifier = attributeModifier;
            this.hideMKey = hideMKey;
            this.response = response;
        }
    }

    /** Writes the attribute into the response; returns a MAD status. */
    @FunctionalInterface
    interface Get {
        int get(Request r);
    }

    /** Applies the attribute the request carries; returns a MAD status (non-zero: nothing changed). */
    @FunctionalInterface
    interface Set {
        int set(Request r);
    }

    /** {@code present}: whether the node has the attribute at all (its firmware, its ports' generation). */
    record Attribute(String name, Get get, Set set, boolean switchOnly, Predicate<Node> present) {
        Attribute(String name, Get get, Set set, boolean switchOnly) {
            this(name, get, set, switchOnly, node -> true);
        }

        boolean answers(Node node) {
            return (!switchOnly || node.type() == NodeType.SWITCH) && present.test(node);
        }
    }

    static final Map<Integer, Attribute> ATTRIBUTES = Map.ofEntries(
            entry(SmAttribute.NODE_DESCRIPTION, new Attribute("NodeDescription", Sma::getNodeDescription, null, false)),
            entry(SmAttribute.NODE_INFO, new Attribute("NodeInfo", Sma::getNodeInfo, null, false)),
            entry(SmAttribute.SWITCH_INFO, new Attribute("SwitchInfo", Sma::getSwitchInfo, Sma::setSwitchInfo, true)),
            entry(SmAttribute.GUID_INFO, new Attribute("GUIDInfo", Sma::getGuidInfo, Sma::setGuidInfo, false)),
            entry(SmAttribute.PORT_INFO, new Attribute("PortInfo", Sma::getPortInfo, Sma::setPortInfo, false)),
            entry(SmAttribute.P_KEY_TABLE, new Attribute("P_KeyTable", Sma::getPKeyTable, Sma::setPKeyTable, false)),
            entry(SmAttribute.SL_TO_VL_MAPPING_TABLE,
                    new Attribute("SLtoVLMappingTable", Sma::getSlToVl, Sma::setSlToVl, false)),
            entry(SmAttribute.VL_ARBITRATION_TABLE,
                    new Attribute("VLArbitrationTable", Sma::getVlArbitration, Sma::setVlArbitration, false)),
            entry(SmAttribute.LINEAR_FORWARDING_TABLE,
                    new Attribute("LinearForwardingTable", Sma::getLinearForwarding, Sma::setLinearForwarding, true)),
            entry(SmAttribute.MULTICAST_FORWARDING_TABLE, new Attribute("MulticastForwardingTable",
                    Sma::getMulticastForwarding, Sma::setMulticastForwarding, true)),
            entry(SmAttribute.PORT_INFO_EXTENDED, new Attribute("PortInfoExtended",
                    LinkAttributes::getPortInfoExtended, LinkAttributes::setPortInfoExtended, false,
                    LinkAttributes::hasPortInfoExtended)),
            entry(SmAttribute.MLNX_EXTENDED_PORT_INFO, new Attribute("MlnxExtPortInfo",
                    LinkAttributes::getMlnxExtPortInfo, LinkAttributes::setMlnxExtPortInfo, false,
                    LinkAttributes::hasMlnxExtPortInfo)));

    private Sma() {
    }

    static Optional<byte[]> process(Node node, int inPort, byte[] request) {
        int method = Mad.method(request);
        if (method != Method.GET && method != Method.SET) {
            // responses, traps, reports and TrapRepress go on to umad clients (qib process_subn)
            if (Method.isResponse(method) || method == Method.TRAP || method == Method.REPORT
                    || method == Method.SEND || method == Method.TRAP_REPRESS) {
                return Optional.empty();
            }
            return Optional.of(reply(Arrays.copyOf(request, Mad.SIZE), MadStatus.UNSUPPORTED_METHOD, true));
        }
        if (Mad.classVersion(request) != 1) {
            return Optional.of(reply(Arrays.copyOf(request, Mad.SIZE), MadStatus.BAD_VERSION, true));
        }
        Port keyPort = node.type() == NodeType.SWITCH ? node.port(0) : node.port(inPort);
        long key = Smp.mKey(request);
        boolean keyMatches = keyPort.mKey == 0 || key == keyPort.mKey;
        if (!keyMatches && (method == Method.SET || keyPort.mKeyProtectBits >= 2)) {
            // an M_Key violation is counted and dropped unanswered (IBA 14.2.4.1, qib check_mkey)
            keyPort.mKeyViolations = Math.min(0xFFFF, keyPort.mKeyViolations + 1);
            return Optional.of(new byte[0]);
        }
        int attributeId = Mad.attributeId(request);
        if (attributeId == SmAttribute.SM_INFO) {
            return Optional.empty(); // the SM's, through umad
        }
        byte[] response = Arrays.copyOf(request, Mad.SIZE);
        Attribute a = ATTRIBUTES.get(attributeId);
        if (a == null || !a.answers(node) || (method == Method.SET && a.set() == null)) {
            return Optional.of(reply(response, MadStatus.UNSUPPORTED_METHOD_ATTRIBUTE, true));
        }
        Request r = new Request(node, inPort, method, Mad.attributeModifier(request),
                !keyMatches && keyPort.mKeyProtectBits == 1, response);
        int status = method == Method.SET ? a.set().set(r) : MadStatus.SUCCESS;
        clearData(response);
        status |= a.get().get(r);
        if (status != MadStatus.SUCCESS && method == Method.GET) {
            clearData(response);
        }
        if (r.echoClientReregister) {
            // the response of a Set keeps ClientReregister as sent (o14-12.2.1)
            PortInfo.LAYOUT.field("clientReregister").set(response, DATA, 1);
        }
        return Optional.of(reply(response, status, false));
    }

    private static byte[] reply(byte[] response, int status, boolean clear) {
        if (clear) {
            clearData(response);
        }
        Mad.setMethod(response, Method.GET_RESP);
        if (Mad.mgmtClass(response) == MgmtClass.SUBN_DIRECTED_ROUTE) {
            status |= MadStatus.DIRECTION;
        }
        Mad.setStatus(response, status);
        return response;
    }

    private static void clearData(byte[] response) {
        Arrays.fill(response, DATA, DATA + Mad.SMP_DATA_SIZE, (byte) 0);
    }

    private static void fire(Port p, PortEvent.Kind kind) {
        p.node().fabric().fire(new PortEvent(p, kind));
    }

    // ---- NodeDescription, NodeInfo (Get only) ----

    private static int getNodeDescription(Request r) {
        if (r.attributeModifier != 0) {
            return MadStatus.INVALID_FIELD;
        }
        NodeDescription.encode(r.node.descriptionBytes(), r.response, DATA);
        return MadStatus.SUCCESS;
    }

    private static int getNodeInfo(Request r) {
        if (r.attributeModifier != 0) {
            return MadStatus.INVALID_FIELD;
        }
        r.node.nodeInfo(r.inPort).encode(r.response, DATA);
        return MadStatus.SUCCESS;
    }

    // ---- PortInfo: attribute modifier = port, 0 = the arrival port on a CA (IBA 14.2.5.6) ----

    static Port portInfoTarget(Request r) {
        // bit 31 is SMSupportsExtendedSpeeds, which OpenSM sets on ports with extended speeds (ibsim masks it)
        int n = r.attributeModifier & 0x7FFFFFFF;
        if (n == 0 && r.node.type() != NodeType.SWITCH) {
            n = r.inPort;
        }
        return r.node.hasPort(n) ? r.node.port(n) : null;
    }

    private static int getPortInfo(Request r) {
        Port p = portInfoTarget(r);
        if (p == null) {
            return MadStatus.INVALID_FIELD;
        }
        p.portInfo(r.inPort, r.hideMKey).encode(r.response, DATA);
        return MadStatus.SUCCESS;
    }

    private static int setPortInfo(Request r) {
        Port p = portInfoTarget(r);
        if (p == null) {
            return MadStatus.INVALID_FIELD;
        }
        PortInfo want = PortInfo.decode(r.response, DATA);
        boolean managed = p.isManaged();
        boolean port0 = r.node.type() == NodeType.SWITCH && p.number() == 0;
        int lwe = want.linkWidthEnabled();
        int lse = want.linkSpeedEnabled();
        int lsee = want.linkSpeedExtEnabled();
        int state = want.portState();
        int phys = want.portPhysicalState();
        // everything is checked before anything changes
        boolean invalid = managed && (want.lid() >= SwitchTables.MULTICAST_LID_BASE
                || want.masterSmLid() >= SwitchTables.MULTICAST_LID_BASE);
        invalid |= lwe != 0 && lwe != 0xFF && (lwe & ~p.linkWidthSupported) != 0;
        invalid |= lse != 0 && lse != 0xF && (lse & ~p.linkSpeedSupported) != 0;
        invalid |= lsee != 0 && lsee != 30 && lsee != 31 && (lsee & ~p.linkSpeedExtSupported) != 0;
        invalid |= want.linkDownDefaultState() > PhysPortState.POLLING.code();
        invalid |= want.neighborMtu() < 1 || want.neighborMtu() > Port.MTU_4096;
        invalid |= want.operationalVls() > Port.VL_CAP;
        // PortPhysicalState may only be set with PortState NoOp or Down (qib subn_set_portinfo)
        invalid |= phys != PortInfo.PHYS_NO_CHANGE && phys != PortInfo.PHYS_POLLING && phys != PortInfo.PHYS_DISABLED;
        invalid |= phys != PortInfo.PHYS_NO_CHANGE && state != PortInfo.STATE_NO_CHANGE && state != PortInfo.STATE_DOWN;
        if (!port0) {
            // only Down, Armed from Init and Active from Armed are transitions an SM may ask for (IBA 7.2.6)
            invalid |= state == PortInfo.STATE_INIT || state > PortInfo.STATE_ACTIVE;
            invalid |= state == PortInfo.STATE_ARMED && p.state != PortState.INIT && p.state != PortState.ARMED;
            invalid |= state == PortInfo.STATE_ACTIVE && p.state != PortState.ARMED && p.state != PortState.ACTIVE;
        }
        if (invalid) {
            return MadStatus.INVALID_FIELD;
        }
        if (managed) {
            if (want.lid() != p.lid || want.lmc() != p.lmc) {
                p.lid = want.lid();
                p.lmc = want.lmc();
                fire(p, PortEvent.Kind.LID_CHANGE);
            }
            if (want.masterSmLid() != p.smLid || want.masterSmSl() != p.smSl) {
                p.smLid = want.masterSmLid();
                p.smSl = want.masterSmSl();
                fire(p, PortEvent.Kind.SM_CHANGE);
            }
            if (want.gidPrefix() != p.subnetPrefix) {
                p.subnetPrefix = want.gidPrefix();
                fire(p, PortEvent.Kind.GID_CHANGE);
            }
            p.mKey = want.mKey();
            p.mKeyProtectBits = want.mKeyProtectBits();
            p.mKeyLeasePeriod = want.mKeyLeasePeriod();
            p.subnetTimeout = want.subnetTimeout();
            if (want.mKeyViolations() == 0) {
                p.mKeyViolations = 0;
            }
        } else {
            // switch external ports only: HCAs ignore VLStallCount and HOQLife (qib)
            p.hoqLife = want.hoqLife();
            p.vlStallCount = want.vlStallCount();
            p.partitionEnforcementInbound = want.partitionEnforcementInbound();
            p.partitionEnforcementOutbound = want.partitionEnforcementOutbound();
            p.filterRawInbound = want.filterRawInbound();
            p.filterRawOutbound = want.filterRawOutbound();
        }
        int[] before = {p.linkWidthEnabled, p.linkSpeedEnabled, p.linkSpeedExtEnabled};
        if (lwe != 0) {
            p.linkWidthEnabled = lwe == 0xFF ? p.linkWidthSupported : lwe;
        }
        if (lse != 0) {
            p.linkSpeedEnabled = lse == 0xF ? p.linkSpeedSupported : lse;
        }
        if (lsee != 0) {
            p.linkSpeedExtEnabled = lsee == 31 ? p.linkSpeedExtSupported : lsee == 30 ? 0 : lsee;
        }
        boolean retrain = p.linkWidthEnabled != before[0] || p.linkSpeedEnabled != before[1]
                || p.linkSpeedExtEnabled != before[2];
        if (retrain && phys == PortInfo.PHYS_NO_CHANGE && state == PortInfo.STATE_NO_CHANGE) {
            p.retrain(); // what a link may train to changed: it trains again, as ibportstate speed/width expect
        }
        if (want.linkDownDefaultState() != 0) {
            p.linkDownDefaultState = want.linkDownDefaultState();
        }
        p.neighborMtu = want.neighborMtu();
        if (want.operationalVls() != 0) {
            p.operationalVls = want.operationalVls();
        }
        p.vlHighLimit = want.vlHighLimit();
        p.localPhyErrorsThreshold = want.localPhyErrors();
        p.overrunErrorsThreshold = want.overrunErrors();
        if (want.pKeyViolations() == 0) {
            p.pKeyViolations = 0;
        }
        if (want.qKeyViolations() == 0) {
            p.qKeyViolations = 0;
        }
        // the state changes last, after the link parameters (qib subn_set_portinfo)
        if (!port0) {
            if (phys == PortInfo.PHYS_DISABLED) {
                p.setPhysical(PhysPortState.DISABLED);
            } else if (phys == PortInfo.PHYS_POLLING) {
                p.setPhysical(PhysPortState.POLLING);
            } else if (state == PortInfo.STATE_DOWN) {
                p.bounce();
            } else if (state == PortInfo.STATE_ARMED) {
                p.arm();
            } else if (state == PortInfo.STATE_ACTIVE) {
                p.activate();
            }
        }
        if (managed && want.clientReregister()) {
            r.echoClientReregister = true;
            fire(p, PortEvent.Kind.CLIENT_REREGISTER);
        }
        return MadStatus.SUCCESS;
    }

    // ---- GUIDInfo: attribute modifier = block of 8; entry 0 is the port GUID, read-only ----

    private static Port managementPort(Request r) {
        return r.node.type() == NodeType.SWITCH ? r.node.port(0) : r.node.port(r.inPort);
    }

    private static int guidBlock(Request r) {
        int block = r.attributeModifier;
        return block >= 0 && block < Port.GUID_CAP / GuidInfo.PER_BLOCK ? block : -1;
    }

    private static int getGuidInfo(Request r) {
        int block = guidBlock(r);
        if (block < 0) {
            return MadStatus.INVALID_FIELD;
        }
        long[] table = managementPort(r).guids;
        Long[] g = new Long[GuidInfo.PER_BLOCK];
        for (int i = 0; i < g.length; i++) {
            int index = block * GuidInfo.PER_BLOCK + i;
            g[i] = index < table.length ? table[index] : 0L;
        }
        new GuidInfo(List.of(g)).encode(r.response, DATA);
        return MadStatus.SUCCESS;
    }

    private static int setGuidInfo(Request r) {
        int block = guidBlock(r);
        if (block < 0) {
            return MadStatus.INVALID_FIELD;
        }
        Port p = managementPort(r);
        List<Long> want = GuidInfo.decode(r.response, DATA).guids();
        long[] table = p.guids.clone();
        for (int i = 0; i < GuidInfo.PER_BLOCK; i++) {
            int index = block * GuidInfo.PER_BLOCK + i;
            if (index > 0 && index < table.length) {
                table[index] = want.get(i);
            }
        }
        p.setGuids(table);
        return MadStatus.SUCCESS;
    }

    // ---- P_KeyTable: modifier bits 15..0 block of 32; a switch's port in bits 31..16 ----

    private static Port pkeyPort(Request r) {
        if (r.node.type() != NodeType.SWITCH) {
            return r.node.port(r.inPort);
        }
        int n = r.attributeModifier >>> 16;
        return r.node.hasPort(n) ? r.node.port(n) : null;
    }

    private static int pkeyBlock(Port p, Request r) {
        int block = r.attributeModifier & 0xFFFF;
        return p != null && block * PKeyTable.PER_BLOCK < p.pkeys.length ? block : -1;
    }

    private static int getPKeyTable(Request r) {
        Port p = pkeyPort(r);
        int block = pkeyBlock(p, r);
        if (block < 0) {
            return MadStatus.INVALID_FIELD;
        }
        PKeyTable.encodeBlock(p.pkeys, block, r.response, DATA);
        return MadStatus.SUCCESS;
    }

    private static int setPKeyTable(Request r) {
        Port p = pkeyPort(r);
        int block = pkeyBlock(p, r);
        if (block < 0) {
            return MadStatus.INVALID_FIELD;
        }
        int[] table = p.pkeys.clone();
        for (int i = 0; i < PKeyTable.PER_BLOCK; i++) {
            int index = block * PKeyTable.PER_BLOCK + i;
            if (index < table.length) {
                table[index] = PKeyTable.entry(r.response, DATA, i);
            }
        }
        p.setPkeys(table);
        return MadStatus.SUCCESS;
    }

    // ---- SLtoVLMappingTable: a CA's arrival port; a switch's input port bits 15..8, output 7..0 ----

    private static int[] slToVlPorts(Request r) {
        if (r.node.type() != NodeType.SWITCH) {
            return new int[] {r.inPort, r.inPort};
        }
        int in = (r.attributeModifier >>> 8) & 0xFF;
        int out = r.attributeModifier & 0xFF;
        boolean ok = (r.attributeModifier >>> 16) == 0 && in <= r.node.portCount() && out <= r.node.portCount();
        return ok ? new int[] {in, out} : null;
    }

    private static int getSlToVl(Request r) {
        int[] ports = slToVlPorts(r);
        if (ports == null) {
            return MadStatus.INVALID_FIELD;
        }
        int[] vls = r.node.type() == NodeType.SWITCH ? r.node.switchTables().slToVl(ports[0], ports[1])
                : r.node.port(r.inPort).slToVl;
        new SlToVlMappingTable(Arrays.stream(vls).boxed().toList()).encode(r.response, DATA);
        return MadStatus.SUCCESS;
    }

    private static int setSlToVl(Request r) {
        int[] ports = slToVlPorts(r);
        if (ports == null) {
            return MadStatus.INVALID_FIELD;
        }
        int[] vls = SlToVlMappingTable.decode(r.response, DATA).vls().stream().mapToInt(Integer::intValue).toArray();
        if (r.node.type() == NodeType.SWITCH) {
            r.node.switchTables().setSlToVl(ports[0], ports[1], vls);
        } else {
            r.node.port(r.inPort).slToVl = vls;
        }
        return MadStatus.SUCCESS;
    }

    // ---- VLArbitrationTable: block in bits 31..16 (1 low, 3 high priority); a switch's port 15..0 ----

    private static Port vlArbitrationPort(Request r) {
        int block = r.attributeModifier >>> 16;
        if (block != VlArbitrationTable.LOW_PRIORITY_0_31 && block != VlArbitrationTable.HIGH_PRIORITY_0_31) {
            return null; // the caps are 8 entries: blocks 2 and 4 do not exist
        }
        if (r.node.type() != NodeType.SWITCH) {
            return r.node.port(r.inPort);
        }
        int n = r.attributeModifier & 0xFFFF;
        return n >= 1 && r.node.hasPort(n) ? r.node.port(n) : null;
    }

    private static boolean highPriority(Request r) {
        return r.attributeModifier >>> 16 == VlArbitrationTable.HIGH_PRIORITY_0_31;
    }

    private static int getVlArbitration(Request r) {
        Port p = vlArbitrationPort(r);
        if (p == null) {
            return MadStatus.INVALID_FIELD;
        }
        int[] table = highPriority(r) ? p.vlArbitrationHigh : p.vlArbitrationLow;
        Integer[] vls = new Integer[VlArbitrationTable.ENTRIES];
        Integer[] weights = new Integer[VlArbitrationTable.ENTRIES];
        for (int i = 0; i < vls.length; i++) {
            vls[i] = table[i] >>> 8;
            weights[i] = table[i] & 0xFF;
        }
        new VlArbitrationTable(List.of(vls), List.of(weights)).encode(r.response, DATA);
        return MadStatus.SUCCESS;
    }

    private static int setVlArbitration(Request r) {
        Port p = vlArbitrationPort(r);
        if (p == null) {
            return MadStatus.INVALID_FIELD;
        }
        VlArbitrationTable want = VlArbitrationTable.decode(r.response, DATA);
        int[] table = new int[VlArbitrationTable.ENTRIES];
        for (int i = 0; i < table.length; i++) {
            table[i] = want.vls().get(i) << 8 | want.weights().get(i);
        }
        if (highPriority(r)) {
            p.vlArbitrationHigh = table;
        } else {
            p.vlArbitrationLow = table;
        }
        return MadStatus.SUCCESS;
    }

    // ---- switches: SwitchInfo, LinearForwardingTable, MulticastForwardingTable ----

    private static int getSwitchInfo(Request r) {
        if (r.attributeModifier != 0) {
            return MadStatus.INVALID_FIELD;
        }
        r.node.switchTables().switchInfo().encode(r.response, DATA);
        return MadStatus.SUCCESS;
    }

    private static int setSwitchInfo(Request r) {
        if (r.attributeModifier != 0) {
            return MadStatus.INVALID_FIELD;
        }
        SwitchInfo want = SwitchInfo.decode(r.response, DATA);
        SwitchTables t = r.node.switchTables();
        int ports = r.node.portCount();
        boolean invalid = want.linearFdbTop() >= SwitchTables.LINEAR_FDB_CAP
                || (want.defaultPort() > ports && want.defaultPort() != 0xFF)
                || (want.defaultMulticastPrimaryPort() > ports && want.defaultMulticastPrimaryPort() != 0xFF)
                || (want.defaultMulticastNotPrimaryPort() > ports && want.defaultMulticastNotPrimaryPort() != 0xFF);
        if (invalid) {
            return MadStatus.INVALID_FIELD;
        }
        t.linearFdbTop = want.linearFdbTop();
        t.defaultPort = want.defaultPort();
        t.defaultMulticastPrimaryPort = want.defaultMulticastPrimaryPort();
        t.defaultMulticastNotPrimaryPort = want.defaultMulticastNotPrimaryPort();
        t.lifeTimeValue = want.lifeTimeValue();
        t.lidsPerPort = want.lidsPerPort();
        t.multicastFdbTop = want.multicastFdbTop();
        if (want.portStateChange()) {
            t.portStateChange = false; // written as 1 to clear (IBA 14.2.5.4)
        }
        return MadStatus.SUCCESS;
    }

    private static int linearBlock(Request r) {
        int block = r.attributeModifier;
        return block >= 0 && block < SwitchTables.LINEAR_FDB_CAP / LinearForwardingTable.PER_BLOCK ? block : -1;
    }

    private static int getLinearForwarding(Request r) {
        int block = linearBlock(r);
        if (block < 0) {
            return MadStatus.INVALID_FIELD;
        }
        r.node.switchTables().copyLinearBlock(block, r.response, DATA);
        return MadStatus.SUCCESS;
    }

    private static int setLinearForwarding(Request r) {
        int block = linearBlock(r);
        if (block < 0) {
            return MadStatus.INVALID_FIELD;
        }
        r.node.switchTables().setLinearBlock(block, r.response, DATA);
        return MadStatus.SUCCESS;
    }

    /** {block, position} from bits 8..0 and 31..28, or null. */
    private static int[] multicastBlock(Request r) {
        int block = r.attributeModifier & 0x1FF;
        int position = r.attributeModifier >>> 28;
        boolean ok = (r.attributeModifier & 0x0FFFFE00) == 0
                && block < SwitchTables.MULTICAST_FDB_CAP / MulticastForwardingTable.PER_BLOCK
                && position < r.node.switchTables().positions();
        return ok ? new int[] {block, position} : null;
    }

    private static int getMulticastForwarding(Request r) {
        int[] at = multicastBlock(r);
        if (at == null) {
            return MadStatus.INVALID_FIELD;
        }
        r.node.switchTables().multicastBlock(at[0], at[1]).encode(r.response, DATA);
        return MadStatus.SUCCESS;
    }

    private static int setMulticastForwarding(Request r) {
        int[] at = multicastBlock(r);
        if (at == null) {
            return MadStatus.INVALID_FIELD;
        }
        r.node.switchTables().setMulticastBlock(at[0], at[1], MulticastForwardingTable.decode(r.response, DATA));
        return MadStatus.SUCCESS;
    }
}
