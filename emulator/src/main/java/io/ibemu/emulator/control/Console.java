package io.ibemu.emulator.control;

import io.ibemu.emulator.capture.Capture;
import io.ibemu.emulator.fabric.Fabric;
import io.ibemu.emulator.fabric.Node;
import io.ibemu.emulator.fabric.Port;
import io.ibemu.emulator.topology.LinkSpeed;
import io.ibemu.emulator.topology.LinkWidth;
import io.ibemu.emulator.topology.NodeDescriptionText;
import io.ibemu.emulator.topology.NodeType;
import io.ibemu.emulator.topology.TopologyWriter;
import io.ibemu.emulator.view.Drawing;
import io.ibemu.emulator.view.Picture;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The control commands: each request's words in, the reply's lines out. A change goes through
 * the fabric model's own operations, which take the fabric lock while they mutate and fire the
 * port events a real port would raise; this class does no I/O.
 */
public final class Console {
    public static final String HELP = """
            Commands (NODE: a node's id as the topology names it, e.g. local, switch or
            H-0011750000000100, or its node GUID as 0x...; PORT: a port number):
              link cut NODE PORT              pull out the cable at NODE's PORT: both ends go
                                              Down/Polling (LinkDownedCounter counts it)
              link restore NODE PORT          plug a cut cable back in: both ends train to LinkUp/Init
              link add NODE PORT NODE PORT [WIDTHxSPEED]
                                              cable two free ports (e.g. 4xQDR, the default)
              node cut NODE                   cut every link of NODE
              node restore NODE               plug every cut link of NODE back in
              node add LINE...                add a node written as topology lines: optional
                                              settings (caguid=0x..., vendid=...), the node line,
                                              then one port line per cable to a free port, e.g.
                                              'Hca 1 "node3" # "node3 HCA-1"' '[1] "switch"[4]'
                                              (ctl: a single - reads the lines from stdin)
              node remove NODE                unplug NODE and take it out of the fabric
                                              (refused for a local HCA)
              drop NODE PORT RATE [ATTRIBUTE] lose RATE of the packets leaving PORT: 0..1 or
                                              0%..100%; only MADs of ATTRIBUTE if given (a name
                                              such as PortInfo, NodeInfo, PortCounters, or an id
                                              such as 0x15); RATE 0 stops it. The far end counts
                                              each loss in PortRcvErrors
              counter NODE PORT NAME VALUE    set a port counter, NAME as perfquery prints it
                                              (SymbolErrorCounter, PortRcvErrors, ...)
              guid NODE GUID                  set NODE's node GUID
              guid NODE PORT GUID             set a port GUID (a switch's ports share one)
              lid NODE PORT LID [LMC]         set a port's LID and LMC (a switch's: port 0)
              dump [NODE]                     every node (or one): ports with state, physical
                                              state, LID, width, speed, cable, "captured" while a
                                              capture listens; then the fabric as
                                              a topology file
              topology                        only the fabric as a topology file
              counters [NODE]                 every cabled port's PMA counters (or NODE's), a
                                              line a port: NODE, PORT and NAME=VALUE as perfquery
                                              names them for each that is not 0, tab-separated
              drops                           the drop rules in force, a line a port
              draw [--digest]                 the fabric now as Graphviz DOT: tiers, live cable
                                              states, LIDs, rates, local HCAs marked (ctl draw
                                              -o FILE.svg lays it out with dot); --digest: only
                                              a fingerprint that changes when the drawing does
              objects                         per local HCA, the open uverbs files and the verbs
                                              objects they hold (pd, mr, mw, cq, qp, srq, ah, xrcd),
                                              and its live IB CM ids (cm_id); then "NAME (removed)"
                                              for a removed HCA whose files are still open (their
                                              objects went with it);
                                              last "rdma_cm cm_id=N", the RDMA CM ids held
              events                          the uevents of the emulated devices, oldest first, one a
                                              line as the kernel sends them (ACTION= DEVPATH= ... SEQNUM=)
              settle                          wait until the udev rules have run for every event
                                              so far (with --udev; as udevadm settle)
              hca add NODE                    make an HCA of the topology a local device of this
                                              host, as a hotplugged card: devices, sysfs, uevents
              hca remove NAME                 take local device NAME away, as ib_unregister_device:
                                              open files fail, verbs contexts get DEVICE_FATAL
              ports                           the local HCAs' ports, one a line: "NODE"[PORT]
                                              guid GUID lid LID STATE/PHYSICAL-STATE
              ports wait active SECONDS       wait until every cabled local port (LinkUp) is
                                              Active, then list them; refused after SECONDS
              capture NODE/PORT [-c COUNT]    stream every packet crossing the port's cable (both
                                              ways, MADs and verbs traffic) until COUNT packets or
                                              the client leaves; ctl writes them as pcap with
                                              -w FILE (-w - for stdout: ... | tshark -r -), in
                                              ERF records as ibdump does (-y INFINIBAND: link
                                              type 247, which Wireshark 4.0 does not read)
              cm                              the live IB CM ids, one a line: device/port, local
                                              and remote communication ID, state, service ID
              ipoib                           with --ipoib: each interface's port, 20-byte hardware
                                              address and carrier, then the neighbours it met
                                              (the stand-in MAC the kernel's ARP cache shows -> the
                                              20-byte address it stands for)
              ipoib child add IFACE PKEY      a P_Key child IFACE.PKEY (as create_child): its own UD
                                              QP, that partition's broadcast group; made down
              ipoib child remove NAME         remove a P_Key child (as delete_child)
              fault add RULE...               arm a fault rule: key=value words such as
                                              on=uverbs:CREATE_QP errno=ENOMEM nth=1 (see
                                              docs/fault-injection.md); prints the rule's id
              fault list                      every rule, a line each: ID hits=N matched=M RULE
              fault clear [ID]                remove rule ID, or every rule
              help                            this list
            """;

    private static final Pattern RATE = Pattern.compile("(\\d+)[xX](\\w+)");

    /** The verbs objects of each local HCA by device name: {@code files=1 pd=2 ...} in a fixed order. */
    @FunctionalInterface
    public interface ObjectCounts {
        Map<String, Map<String, Integer>> byDevice();
    }

    private final Fabric fabric;
    private final Set<Node> locals;
    private final ObjectCounts objects;
    private final Supplier<List<String>> events;
    /** Commands the daemon serves itself (udev settle, hca add/remove), by first word. */
    private final Map<String, DaemonCommand> daemonCommands;

    /** A command the daemon serves outside the fabric model: its words after the first in, reply lines out. */
    @FunctionalInterface
    public interface DaemonCommand {
        List<String> run(List<String> args) throws ControlException;
    }

    /** {@code locals}: the nodes that serve this host's device files, which cannot be removed (a live view). */
    public Console(Fabric fabric, Set<Node> locals) {
        this(fabric, locals, Map::of);
    }

    public Console(Fabric fabric, Set<Node> locals, ObjectCounts objects) {
        this(fabric, locals, objects, List::of);
    }

    /** {@code events}: the instance's recent uevents, one line each, for `events`. */
    public Console(Fabric fabric, Set<Node> locals, ObjectCounts objects, Supplier<List<String>> events) {
        this(fabric, locals, objects, events, Map.of());
    }

    /** {@code locals}: a live view (hotplug changes it); {@code daemonCommands}: served by the daemon. */
    public Console(Fabric fabric, Set<Node> locals, ObjectCounts objects, Supplier<List<String>> events,
                   Map<String, DaemonCommand> daemonCommands) {
        this.fabric = fabric;
        this.locals = java.util.Collections.unmodifiableSet(locals);
        this.objects = objects;
        this.events = events;
        this.daemonCommands = Map.copyOf(daemonCommands);
    }

    /** Carries out one request; the lines of its reply, or the reason it was refused. */
    public List<String> execute(List<String> words) throws ControlException {
        if (words.isEmpty()) {
            return List.of();
        }
        Args a = new Args(words);
        try {
            return switch (a.word("a command (try help)").toLowerCase(Locale.ROOT)) {
                case "link" -> link(a);
                case "node" -> node(a);
                case "drop" -> drop(a);
                case "counter" -> counter(a);
                case "guid" -> guid(a);
                case "lid" -> lid(a);
                case "dump" -> dump(a);
                case "topology" -> {
                    a.end();
                    yield TopologyWriter.ibnetdiscover(fabric.currentTopology()).lines().toList();
                }
                case "counters" -> counters(a);
                case "drops" -> {
                    a.end();
                    yield drops();
                }
                case "draw" -> {
                    boolean digest = a.more();
                    if (digest && !a.word("--digest").equals("--digest")) {
                        throw new ControlException("draw takes only --digest (ctl draw -o FILE lays it out)");
                    }
                    a.end();
                    Picture picture = Picture.of("ibemu fabric", fabric, locals);
                    // a fingerprint of what the drawing shows, for a watcher that redraws only on change
                    yield digest ? List.of(String.format("%08x", picture.hashCode()))
                            : Drawing.dot(picture).lines().toList();
                }
                case "objects" -> {
                    a.end();
                    yield objects();
                }
                case "events" -> {
                    a.end();
                    yield events.get();
                }
                case "ports" -> ports(a);
                case "capture" -> throw new ControlException("capture streams packets: ask for it with "
                        + "'ibemu ctl capture NODE/PORT -w FILE' (a control connection serves it, not a reply)");
                case "help", "?" -> HELP.lines().toList();
                default -> {
                    DaemonCommand c = daemonCommands.get(words.get(0).toLowerCase(Locale.ROOT));
                    if (c != null) {
                        yield c.run(a.rest());
                    }
                    throw new ControlException("unknown command '" + words.get(0)
                        + "': expected link, node, drop, drops, counter, counters, guid, lid, dump, topology, draw, objects, events, ports, capture, hca, settle, cm, ipoib, fault or help");
                }
            };
        } catch (IllegalArgumentException | IllegalStateException e) {
            throw new ControlException(e.getMessage());
        }
    }

    /** The first word of a request whose reply is a stream of packets ({@link #capture}). */
    public static final String CAPTURE = "capture";

    /**
     * Starts {@code capture NODE/PORT [-c COUNT]}: the words after "capture". The caller reads
     * the frames and closes the capture.
     */
    public Capture capture(List<String> words) throws ControlException {
        Args a = new Args(words);
        String target = a.word("NODE/PORT, e.g. local/1");
        int slash = target.lastIndexOf('/');
        if (slash <= 0 || slash == target.length() - 1) {
            throw new ControlException("'" + target + "' is not NODE/PORT: write the node's id or 0x GUID, a slash, "
                    + "and a port number, e.g. local/1");
        }
        String ref = target.substring(0, slash);
        Node n = fabric.node(ref).orElseThrow(() -> new ControlException("no node '" + ref + "' in the fabric: "
                + "give its id as dump lists it or its node GUID as 0x..."));
        Port p = portOf(n, target.substring(slash + 1));
        if (p.number() == 0 && n.type() == NodeType.SWITCH) {
            throw new ControlException("port 0 of \"" + n.id() + "\" is the switch's management port and has no "
                    + "cable to capture: give a port 1.." + n.portCount());
        }
        long count = 0;
        while (a.more()) {
            String opt = a.word("an option");
            if (!opt.equals("-c")) {
                throw new ControlException("unknown capture option '" + opt + "': expected -c COUNT");
            }
            count = a.number("a packet COUNT", 1, Long.MAX_VALUE);
        }
        try {
            return Capture.start(p, count);
        } catch (IllegalStateException e) {
            throw new ControlException(e.getMessage() + ": one capture per port at a time");
        }
    }

    private List<String> objects() {
        List<String> lines = new ArrayList<>();
        objects.byDevice().forEach((device, counts) -> {
            StringBuilder b = new StringBuilder(device);
            counts.forEach((kind, n) -> b.append(' ').append(kind).append('=').append(n));
            lines.add(b.toString());
        });
        return lines;
    }

    // ---- link, node ----

    private List<String> link(Args a) throws ControlException {
        String verb = a.word("cut, restore or add after link");
        switch (verb) {
            case "cut", "restore" -> {
                Port p = a.cablePort();
                a.end();
                Port other = p.cableEnd().orElseThrow(() -> new ControlException(p + " has no cable to " + verb));
                if (verb.equals("cut")) {
                    p.cut();
                } else {
                    p.restore();
                }
                return List.of(link(p, other) + " " + (verb.equals("cut") ? "cut: " : "restored: ") + state(p)
                        + ", " + state(other));
            }
            case "add" -> {
                Port p = a.cablePort();
                Port q = a.cablePort();
                LinkWidth w = null;
                LinkSpeed s = null;
                if (a.more()) {
                    String rate = a.word("WIDTHxSPEED");
                    Matcher m = RATE.matcher(rate);
                    try {
                        if (!m.matches()) {
                            throw new IllegalArgumentException();
                        }
                        w = LinkWidth.ofLanes(Integer.parseInt(m.group(1)));
                        s = LinkSpeed.parse(m.group(2));
                    } catch (IllegalArgumentException e) {
                        throw new ControlException("'" + rate + "' is not a link rate: write WIDTHxSPEED, e.g. 4xQDR"
                                + " (widths 1, 2, 4, 8, 12; speeds SDR DDR QDR FDR10 FDR EDR HDR NDR)");
                    }
                }
                a.end();
                fabric.connect(p, q, w, s);
                return List.of(link(p, q) + " added: " + state(p) + ", " + state(q));
            }
            default -> throw new ControlException("unknown link command '" + verb + "': expected cut, restore or add");
        }
    }

    private List<String> node(Args a) throws ControlException {
        String verb = a.word("cut, restore, add or remove after node");
        switch (verb) {
            case "cut", "restore" -> {
                Node n = a.node();
                a.end();
                boolean cut = verb.equals("cut");
                List<String> out = new ArrayList<>();
                synchronized (fabric.lock()) {
                    for (Port p : n.ports()) {
                        if (p.cableEnd().isPresent() && p.isCut() != cut) {
                            Port other = p.cableEnd().get();
                            if (cut) {
                                p.cut();
                            } else {
                                p.restore();
                            }
                            out.add(link(p, other) + (cut ? " cut: " : " restored: ") + state(p) + ", "
                                    + state(other));
                        }
                    }
                }
                if (out.isEmpty()) {
                    out.add("\"" + n.id() + "\" has no " + (cut ? "plugged-in" : "cut") + " cable: nothing to do");
                }
                return out;
            }
            case "add" -> {
                List<String> lines = a.rest();
                if (lines.isEmpty()) {
                    throw new ControlException("node add needs the node as topology lines, e.g. "
                            + "'Hca 1 \"node3\"' '[1] \"switch\"[4]'");
                }
                NodeText.Parsed parsed = NodeText.parse(lines, fabric);
                Node n = fabric.addNode(parsed.spec(), parsed.links());
                List<String> out = new ArrayList<>();
                out.add(String.format("added %s \"%s\" guid 0x%016x", typeName(n), n.id(), n.guid()));
                for (Port p : n.ports()) {
                    p.peer().ifPresent(q -> out.add(link(p, q) + ": " + state(p) + ", " + state(q)));
                }
                return out;
            }
            case "remove" -> {
                Node n = a.node();
                a.end();
                if (locals.contains(n)) {
                    throw new ControlException("\"" + n.id() + "\" is a local HCA: it serves this host's "
                            + "/dev/infiniband devices and cannot be removed (cut its links with node cut instead)");
                }
                List<String> out = new ArrayList<>();
                for (Port p : n.ports()) {
                    p.cableEnd().ifPresent(q -> out.add("unplugged " + link(p, q)));
                }
                fabric.removeNode(n);
                out.add("removed \"" + n.id() + "\"");
                return out;
            }
            default -> throw new ControlException(
                    "unknown node command '" + verb + "': expected cut, restore, add or remove");
        }
    }

    // ---- drop, counter, guid, lid ----

    private List<String> drop(Args a) throws ControlException {
        Port p = a.cablePort();
        double rate = DropAttributes.rate(a.word("a RATE (0..1 or a percentage such as 25%)"));
        int attribute = -1;
        int[] classes = new int[0];
        String named = "";
        if (a.more()) {
            DropAttributes.Attribute attr = DropAttributes.parse(a.word("ATTRIBUTE"));
            attribute = attr.id();
            classes = attr.classes();
            named = " of " + attr.name();
        }
        a.end();
        p.setDropRate(rate, attribute, classes);
        if (rate == 0) {
            return List.of(p + " drops no packets");
        }
        return List.of(String.format("%s drops %s of the packets%s it sends", p, percent(rate),
                attribute >= 0 ? " (MADs" + named + ")" : ""));
    }

    private List<String> counter(Args a) throws ControlException {
        Port p = a.port();
        String name = a.word("a counter NAME as perfquery prints it, e.g. SymbolErrorCounter");
        Port.Counter counter = null;
        for (Port.Counter c : Port.Counter.values()) {
            if (c.perfName().equalsIgnoreCase(name)) {
                counter = c;
            }
        }
        if (counter == null) {
            List<String> names = new ArrayList<>();
            for (Port.Counter c : Port.Counter.values()) {
                names.add(c.perfName());
            }
            throw new ControlException("no counter '" + name + "': expected one of " + String.join(", ", names));
        }
        long value = a.number("a counter VALUE", 0, counter.maxValue());
        a.end();
        p.setCounter(counter, value);
        return List.of(p + " " + counter.perfName() + " = " + value);
    }

    private List<String> guid(Args a) throws ControlException {
        Node n = a.node();
        String first = a.word("a GUID (guid NODE GUID, or guid NODE PORT GUID)");
        if (!a.more()) {
            long g = parseGuid(first);
            fabric.setNodeGuid(n, g);
            return List.of(String.format("\"%s\" node GUID 0x%016x", n.id(), g));
        }
        Port p = portOf(n, first);
        long g = parseGuid(a.word("a GUID"));
        a.end();
        fabric.setPortGuid(p, g);
        return List.of(String.format("%s port GUID 0x%016x", n.type() == NodeType.SWITCH ? "\"" + n.id()
                + "\" (every port of the switch)" : p.toString(), g));
    }

    private List<String> lid(Args a) throws ControlException {
        Port p = a.port();
        int lid = (int) a.number("a LID", 0, 0xBFFF);
        int lmc = a.more() ? (int) a.number("an LMC", 0, 7) : p.lmc();
        a.end();
        p.setLid(lid, lmc);
        return List.of(p + " lid " + lid + " lmc " + lmc);
    }

    // ---- counters, drops ----

    /** The drop rules set with {@code drop}: one line a port that loses packets. */
    private List<String> drops() {
        List<String> out = new ArrayList<>();
        for (Node n : fabric.nodes()) {
            for (Port p : n.ports()) {
                if (p.dropRate() > 0) {
                    out.add(p + " drops " + percent(p.dropRate()) + (p.dropAttribute() >= 0
                            ? String.format(" of MADs with attribute 0x%04x", p.dropAttribute()) : " of its packets"));
                }
            }
        }
        return out;
    }

    private List<String> counters(Args a) throws ControlException {
        List<Node> nodes = a.more() ? List.of(a.node()) : fabric.nodes();
        a.end();
        List<String> out = new ArrayList<>();
        for (Node n : nodes) {
            for (Port p : n.ports()) {
                if (p.cableEnd().isEmpty()) {
                    continue;
                }
                StringBuilder b = new StringBuilder(n.id()).append('\t').append(p.number());
                for (Port.Counter c : Port.Counter.values()) {
                    long v = p.counter(c);
                    if (v != 0) {
                        b.append('\t').append(c.perfName()).append('=').append(v);
                    }
                }
                out.add(b.toString());
            }
        }
        return out;
    }

    // ---- dump ----

    private List<String> dump(Args a) throws ControlException {
        List<Node> nodes = a.more() ? List.of(a.node()) : fabric.nodes();
        a.end();
        List<String> out = new ArrayList<>();
        for (Node n : nodes) {
            out.add(String.format("%s %d \"%s\" guid 0x%016x \"%s\"%s", typeName(n), n.portCount(), n.id(), n.guid(),
                    NodeDescriptionText.quote(n.description()), locals.contains(n) ? " local" : ""));
            for (Port p : n.ports()) {
                out.add("  " + portLine(p));
            }
        }
        out.add("# " + fabric.nodes().size() + " nodes");
        if (nodes.size() > 1) {
            out.add("");
            out.addAll(TopologyWriter.ibnetdiscover(fabric.currentTopology()).lines().toList());
        }
        return out;
    }

    // ---- ports: what a start waits for (the launcher's --sm opensm) ----

    /** How often `ports wait` looks again; the fabric is read, never locked, meanwhile. */
    private static final long PORTS_POLL_MS = 50;

    private List<String> ports(Args a) throws ControlException {
        if (!a.more()) {
            return localPortLines();
        }
        List<String> rest = a.rest();
        if (rest.size() != 3 || !rest.get(0).equals("wait") || !rest.get(1).equals("active")) {
            throw new ControlException("expected 'ports' or 'ports wait active SECONDS'");
        }
        long seconds;
        try {
            seconds = Long.parseUnsignedLong(rest.get(2));
        } catch (NumberFormatException e) {
            throw new ControlException("SECONDS: a number of seconds, not '" + rest.get(2) + "'");
        }
        long deadline = System.nanoTime() + seconds * 1_000_000_000L;
        List<Port> waiting = notYetActive();
        while (!waiting.isEmpty()) {
            if (System.nanoTime() >= deadline) {
                throw new ControlException("not Active after " + seconds + " s: "
                        + String.join(" ", waiting.stream().map(Console::end).toList()));
            }
            try {
                Thread.sleep(PORTS_POLL_MS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new ControlException("interrupted while waiting for the ports");
            }
            waiting = notYetActive();
        }
        return localPortLines();
    }

    private List<Port> localPorts() {
        return locals.stream().sorted(java.util.Comparator.comparing(Node::id))
                .flatMap(n -> n.ports().stream().filter(p -> p.number() > 0)).toList();
    }

    /** Cabled (LinkUp) but not Active: what an SM has still to configure. */
    private List<Port> notYetActive() {
        return localPorts().stream().filter(p -> p.physicalState() == io.ibemu.emulator.fabric.PhysPortState.LINK_UP
                && p.state() != io.ibemu.emulator.fabric.PortState.ACTIVE).toList();
    }

    private List<String> localPortLines() {
        return localPorts().stream().map(p -> String.format("%s guid 0x%016x lid %d %s", end(p), p.guid(), p.lid(), state(p)))
                .toList();
    }

    private static String portLine(Port p) {
        StringBuilder s = new StringBuilder("[" + p.number() + "]");
        boolean managed = p.node().type() != NodeType.SWITCH || p.number() == 0;
        if (managed) {
            // a switch's external ports share port 0's GUID and have no LID of their own
            s.append(String.format(" guid 0x%016x lid %d lmc %d sm_lid %d", p.guid(), p.lid(), p.lmc(), p.smLid()));
        }
        s.append(' ').append(state(p));
        if (p.physicalState() == io.ibemu.emulator.fabric.PhysPortState.LINK_UP) {
            s.append(' ').append(p.activeWidth().lanes()).append('x').append(p.activeSpeed());
        }
        p.cableEnd().ifPresent(q -> s.append(" -- ").append(end(q)).append(p.isCut() ? " cut" : ""));
        if (p.tap() != null) {
            s.append(" captured");
        }
        if (p.dropRate() > 0) {
            s.append(" drop ").append(percent(p.dropRate()));
            if (p.dropAttribute() >= 0) {
                s.append(String.format(" attribute 0x%04x", p.dropAttribute()));
            }
        }
        return s.toString();
    }

    private static String state(Port p) {
        String logical = switch (p.state()) {
            case DOWN -> "Down";
            case INIT -> "Init";
            case ARMED -> "Armed";
            case ACTIVE -> "Active";
            case ACTIVE_DEFER -> "ActDefer";
        };
        String phys = switch (p.physicalState()) {
            case SLEEP -> "Sleep";
            case POLLING -> "Polling";
            case DISABLED -> "Disabled";
            case PORT_CONFIGURATION_TRAINING -> "PortConfigurationTraining";
            case LINK_UP -> "LinkUp";
            case LINK_ERROR_RECOVERY -> "LinkErrorRecovery";
            case PHY_TEST -> "PhyTest";
        };
        return logical + "/" + phys;
    }

    private static String end(Port p) {
        return "\"" + p.node().id() + "\"[" + p.number() + "]";
    }

    private static String link(Port a, Port b) {
        return end(a) + " -- " + end(b);
    }

    private static String typeName(Node n) {
        return switch (n.type()) {
            case SWITCH -> "Switch";
            case CA -> "Hca";
            case ROUTER -> "Rt";
        };
    }

    private static String percent(double rate) {
        String s = String.format(Locale.ROOT, "%.4f", rate * 100).replaceAll("0+$", "").replaceAll("\\.$", "");
        return s + "%";
    }

    private static long parseGuid(String s) throws ControlException {
        String hex = s.startsWith("0x") || s.startsWith("0X") ? s.substring(2) : s;
        try {
            if (hex.isEmpty() || hex.length() > 16) {
                throw new NumberFormatException();
            }
            return Long.parseUnsignedLong(hex, 16);
        } catch (NumberFormatException e) {
            throw new ControlException("'" + s + "' is not a GUID: write up to 16 hex digits, e.g. 0x0011750000000100");
        }
    }

    private Port portOf(Node n, String word) throws ControlException {
        int number;
        try {
            number = Integer.decode(word);
        } catch (NumberFormatException e) {
            throw new ControlException("'" + word + "' is not a port number");
        }
        if (!n.hasPort(number)) {
            throw new ControlException("\"" + n.id() + "\" has ports " + (n.type() == NodeType.SWITCH ? 0 : 1) + ".."
                    + n.portCount() + ", not " + word);
        }
        return n.port(number);
    }

    /** The request's words after the command, taken in order, each with what it should be. */
    private final class Args {
        private final List<String> words;
        private int next;

        Args(List<String> words) {
            this.words = words;
        }

        boolean more() {
            return next < words.size();
        }

        String word(String what) throws ControlException {
            if (!more()) {
                throw new ControlException("missing " + what + " after '" + String.join(" ", words) + "'"
                        + " (help lists the commands)");
            }
            return words.get(next++);
        }

        List<String> rest() {
            List<String> r = words.subList(next, words.size());
            next = words.size();
            return r;
        }

        void end() throws ControlException {
            if (more()) {
                throw new ControlException("unexpected '" + words.get(next) + "' at the end of '"
                        + String.join(" ", words) + "' (help lists the commands)");
            }
        }

        Node node() throws ControlException {
            String ref = word("a NODE (its id, e.g. local, or its 0x GUID)");
            return fabric.node(ref).orElseThrow(() -> new ControlException("no node '" + ref + "' in the fabric: "
                    + "give its id as dump lists it (e.g. " + example() + ") or its node GUID as 0x..."));
        }

        Port port() throws ControlException {
            Node n = node();
            return portOf(n, word("a PORT number"));
        }

        /** A port that can carry a cable: not a switch's port 0. */
        Port cablePort() throws ControlException {
            Port p = port();
            if (p.number() == 0) {
                throw new ControlException("port 0 of \"" + p.node().id() + "\" is the switch's management port and "
                        + "has no cable: give a port 1.." + p.node().portCount());
            }
            return p;
        }

        long number(String what, long min, long max) throws ControlException {
            String w = word(what);
            long v;
            try {
                v = w.startsWith("0x") || w.startsWith("0X") ? Long.parseLong(w.substring(2), 16) : Long.parseLong(w);
            } catch (NumberFormatException e) {
                throw new ControlException("'" + w + "' is not a number: expected " + what + " in " + min + ".." + max);
            }
            if (v < min || v > max) {
                throw new ControlException(w + " is out of range: expected " + what + " in " + min + ".." + max);
            }
            return v;
        }

        private String example() {
            List<Node> nodes = fabric.nodes();
            return nodes.isEmpty() ? "local" : "\"" + nodes.get(0).id() + "\"";
        }
    }
}
