package io.ibemu.emulator.topology;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.Reader;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads ibsim's "net" files and the output of {@code ibnetdiscover}. The two are one grammar
 * (ibsim loads ibnetdiscover output with the same parser, ibsim/sim_net.c), read line by line:
 * <ul>
 * <li>node lines {@code Switch 8 "name"}, {@code Hca 2 "name"}, {@code Ca 2 "H-<guid>"},
 * {@code Rt 1 "name"}, optionally followed by {@code # "description"} and, for a switch,
 * {@code enhanced port 0 lid 1 lmc 0};</li>
 * <li>port lines under a node: {@code [1] "peer"[3]} (peer port 1 when omitted), with
 * ibnetdiscover's port GUIDs in parentheses, {@code [1](2c903000e0b73) "S-..."[3]}, ibsim's
 * options {@code w=} (enabled width mask), {@code s=} (speed mask), {@code e=} (extended speed
 * mask), ibemu's {@code ipoib=10.1.0.1/24} (a CA port's IPoIB address; ibsim skips an option
 * whose name does not end in w, s or e), and ibnetdiscover's comment {@code # lid 2 lmc 0 "peer description" lid 1 4xQDR};</li>
 * <li>settings for the next node: {@code vendid=}, {@code sysimgguid=},
 * {@code switchguid=0x..(0x..)}, {@code caguid=}/{@code hcaguids=}, {@code rtguid=} (a GUID
 * base, as in ibsim: later nodes of the type count on from it); for all later nodes:
 * {@code devid=} (ibsim keeps it); for all later ports: {@code width=}, {@code speed=},
 * {@code extspeed=};</li>
 * <li>{@code include "file"} (relative to the including file), comments, blank lines; ibsim's
 * {@code do} console commands and the chassis lines of {@code ibnetdiscover -g} are skipped.</li>
 * </ul>
 * A port may be listed from one end or both; listed from both, the two ends must agree. GUIDs
 * come from the file when it has them (the id "S-/H-/R-&lt;guid&gt;", a {@code ...guid=} line,
 * port GUIDs in parentheses); otherwise they are fixed by position in the file: node number
 * n (from 1) gets {@code 0x001175000000nn00} (QLogic OUI) for a CA or router,
 * {@code 0x0002c9000000nn00} (Mellanox OUI) for a switch, CA port p gets node GUID + p, and the
 * system image GUID is the node GUID.
 */
public final class TopologyParser {
    /** Which tool wrote the file; only changes the wording of error messages. */
    public enum Format { NET, IBNETDISCOVER }

    public static final int CA_VENDOR_ID = 0x1077;
    public static final int CA_DEVICE_ID = 0x7322;
    public static final int SWITCH_VENDOR_ID = 0x02c9;
    public static final int SWITCH_DEVICE_ID = 0xbd36;
    static final long CA_GUID_PREFIX = 0x0011750000000000L;
    static final long SWITCH_GUID_PREFIX = 0x0002c90000000000L;
    /** ibsim's MAX_INCLUDE. */
    private static final int MAX_INCLUDE_DEPTH = 9;
    private static final int MAX_PORTS = 254;

    private static final Pattern NODE = Pattern.compile("^(Switch|Hca|Ca|Rt)\\s*(\\d+)\\s*\"([^\"]*)\"\\s*(.*)$");
    private static final Pattern PORT = Pattern.compile(
            "^\\[(\\d+)\\](?:\\[ext \\d+\\])?\\s*(?:\\(([0-9a-fA-FxX]+)\\))?\\s*\"([^\"]*)\"\\s*(?:\\[(\\d+)\\])?"
                    + "(?:\\[ext \\d+\\])?\\s*(?:\\(([0-9a-fA-FxX]+)\\))?(.*)$");
    private static final Pattern SETTING = Pattern.compile("^([A-Za-z]+)\\s*=\\s*(\\S.*)$");
    private static final Pattern INCLUDE = Pattern.compile("^include\\s+(?:\"([^\"]+)\"|(\\S+))\\s*$");
    private static final Pattern GUID_ID = Pattern.compile("^[SHR]-([0-9a-fA-F]{16})$");
    private static final Pattern LID = Pattern.compile("\\blid\\s+(\\d+)");
    private static final Pattern WIDTH_SPEED = Pattern.compile("\\b(\\d+)[xX](SDR|DDR|QDR|FDR10|FDR|EDR|HDR|NDR)\\b");
    private static final Pattern OPTION = Pattern.compile("^([A-Za-z]+)=(\\S+)$");
    private static final Pattern BLANKS = Pattern.compile("\\s+");
    /** ibemu's port option: the port's IPoIB interface address. */
    static final String IPOIB_OPTION = "ipoib=";

    /** An error message, with whatever it quotes from the file, is cut to this many characters. */
    static final int MAX_MESSAGE = 200;

    private record Where(String source, int line, String chain) {
        TopologyException error(String message) {
            return new TopologyException(source, line, clip(message) + chain);
        }

        @Override
        public String toString() {
            return source + ":" + line;
        }
    }

    private record PortLine(int port, String peerId, int peerPort, LinkWidth width, LinkSpeed speed, Long peerGuid,
                            Where where) {
    }

    private static final class Pending {
        final NodeType type;
        final String id;
        final String description;
        final int portCount;
        final long guid;
        final long systemImageGuid;
        final int vendorId;
        final int deviceId;
        final boolean enhancedPort0;
        final Where where;
        final Long[] portGuids;
        final PortLine[] ports;
        /** Ports already joined into a link by {@link #link()}. */
        final boolean[] cabled;
        /** A port's {@code ipoib=} address, by port number. */
        final IpoibAddress[] ipoib;
        int baseLid;
        int baseLidPort = Integer.MAX_VALUE;

        Pending(NodeType type, String id, String description, int portCount, long guid, long systemImageGuid,
                int vendorId, int deviceId, boolean enhancedPort0, Where where) {
            this.type = type;
            this.id = id;
            this.description = description;
            this.portCount = portCount;
            this.guid = guid;
            this.systemImageGuid = systemImageGuid;
            this.vendorId = vendorId;
            this.deviceId = deviceId;
            this.enhancedPort0 = enhancedPort0;
            this.where = where;
            this.portGuids = new Long[portCount + 1];
            this.ports = new PortLine[portCount + 1];
            this.cabled = new boolean[portCount + 1];
            this.ipoib = new IpoibAddress[portCount + 1];
        }
    }

    private final List<Pending> nodes = new ArrayList<>();
    private final Map<String, Pending> byId = new HashMap<>();
    private final Map<Long, Pending> byGuid = new HashMap<>();
    /** Which port holds an {@code ipoib=} address, and where it was given: "node"[port] (file:line). */
    private final Map<Integer, String> ipoibOwner = new HashMap<>();
    /** A {@code ...guid=} line for the next node of a type, and where its count continues. */
    private final Map<NodeType, Long> pendingGuid = new EnumMap<>(NodeType.class);
    private final Map<NodeType, Long> nextGuid = new EnumMap<>(NodeType.class);
    private Long pendingSwitchPortGuid;
    private Long pendingSystemImageGuid;
    private Integer pendingVendorId;
    private Integer pendingDeviceId;
    private LinkWidth netWidth;
    private int netSpeedMask;
    private int netExtSpeedMask;
    private Pending current;
    private Format format = Format.NET;

    private TopologyParser() {
    }

    public static Topology parse(Path file) throws IOException, TopologyException {
        Path dir = file.toAbsolutePath().getParent();
        return new TopologyParser().run(file.toString(), lines(file.toString(), Files.readAllBytes(file)), dir);
    }

    /** Reads {@code reader}; an {@code include} is resolved against the working directory. */
    public static Topology parse(String sourceName, Reader reader) throws IOException, TopologyException {
        List<String> lines = new ArrayList<>(new BufferedReader(reader).lines().toList());
        if (!lines.isEmpty() && lines.get(0).startsWith("\uFEFF")) {
            lines.set(0, lines.get(0).substring(1));
        }
        return new TopologyParser().run(sourceName, lines, Path.of("").toAbsolutePath());
    }

    /**
     * A file's lines as UTF-8, a leading byte-order mark dropped; bytes that are not UTF-8
     * (binary, Latin-1) are an error naming their line and column rather than the decoder's
     * "Input length = 1".
     */
    static List<String> lines(String source, byte[] bytes) throws TopologyException {
        int start = bytes.length >= 3 && (bytes[0] & 0xff) == 0xEF && (bytes[1] & 0xff) == 0xBB
                && (bytes[2] & 0xff) == 0xBF ? 3 : 0;
        List<String> lines = new ArrayList<>();
        CharsetDecoder decoder = StandardCharsets.UTF_8.newDecoder()
                .onMalformedInput(CodingErrorAction.REPORT).onUnmappableCharacter(CodingErrorAction.REPORT);
        int from = start;
        while (from < bytes.length) {
            int end = from;
            while (end < bytes.length && bytes[end] != '\n') {
                end++;
            }
            int stop = end > from && bytes[end - 1] == '\r' ? end - 1 : end;
            ByteBuffer line = ByteBuffer.wrap(bytes, from, stop - from);
            try {
                lines.add(decoder.decode(line).toString());
            } catch (CharacterCodingException e) {
                int column = line.position() - from + 1;
                throw new TopologyException(source, lines.size() + 1, String.format(
                        "not UTF-8 text: byte 0x%02X at column %d (a topology file is text)",
                        bytes[line.position()] & 0xff, column));
            }
            from = end + 1;
        }
        return lines;
    }

    /** Quoted file text in a message: control characters shown as \xNN, the whole cut to MAX_MESSAGE. */
    static String clip(String message) {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < message.length() && b.length() < MAX_MESSAGE; i++) {
            char c = message.charAt(i);
            if (c < 0x20 || c == 0x7f) {
                b.append(String.format("\\x%02X", (int) c));
            } else {
                b.append(c);
            }
        }
        if (b.length() >= MAX_MESSAGE && message.length() > MAX_MESSAGE) {
            b.setLength(MAX_MESSAGE);
            b.append("... (").append(message.length()).append(" characters)");
        }
        return b.toString();
    }

    /** ibnetdiscover names every node "S-", "H-" or "R-" and its GUID; ibsim files name them freely. */
    public static Format detect(List<String> lines) {
        for (String l : lines) {
            if (l.startsWith("# Topology file: generated")) {
                return Format.IBNETDISCOVER;
            }
            String t = l.strip();
            if (t.startsWith("Switch") || t.startsWith("Ca") || t.startsWith("Hca") || t.startsWith("Rt")) {
                Matcher m = NODE.matcher(t);
                if (m.matches()) {
                    // the first node line decides: reading on through a large net file would cost a second pass
                    return GUID_ID.matcher(m.group(3)).matches() ? Format.IBNETDISCOVER : Format.NET;
                }
            }
        }
        return Format.NET;
    }

    private Topology run(String source, List<String> lines, Path dir) throws TopologyException {
        format = detect(lines);
        read(source, lines, dir, "", 0);
        if (nodes.isEmpty()) {
            throw new TopologyException(source, lines.size(), "no nodes: expected a line like Switch 8 \"name\"");
        }
        List<LinkSpec> links = link();
        return new Topology(specs(), links);
    }

    private void read(String source, List<String> lines, Path dir, String chain, int depth) throws TopologyException {
        current = null;
        for (int i = 0; i < lines.size(); i++) {
            Where where = new Where(source, i + 1, chain);
            String t = lines.get(i).strip();
            if (t.isEmpty() || t.startsWith("#")) {
                continue;
            }
            int nul = t.indexOf('\0');
            if (nul >= 0) {
                // names and descriptions end up in C strings (NodeDescription, ibnetdiscover's output)
                throw where.error("a NUL character at column " + (lines.get(i).indexOf('\0') + 1) + " in '" + t + "'");
            }
            Matcher m;
            if ((m = NODE.matcher(t)).matches()) {
                node(m, where);
            } else if (t.startsWith("[")) {
                port(t, where);
            } else if (t.startsWith("@")) {
                throw where.error("ibsim port aliases (@...) are not supported, got '" + t + "'");
            } else if ((m = INCLUDE.matcher(t)).matches()) {
                include(m.group(1) != null ? m.group(1) : m.group(2), dir, where, depth);
                current = null;
            } else if ((m = SETTING.matcher(t)).matches()) {
                // ibnetdiscover -g appends "# chassis ..." to switchguid= and sysimgguid= lines
                String value = m.group(2);
                int hash = value.indexOf('#');
                setting(m.group(1), (hash >= 0 ? value.substring(0, hash) : value).strip(), where);
                current = null;
            } else if (t.equals("do") || t.startsWith("do ") || t.startsWith("do\t")
                    || t.startsWith("Chassis ") || t.startsWith("Hostname:") || t.equals("Non-Chassis Nodes")) {
                // ibsim console commands run at load, and ibnetdiscover -g grouping: no topology in them
                current = null;
            } else {
                throw where.error("expected a node line like Switch 8 \"name\", a port line like "
                        + portExample() + " or a setting like vendid=0x2c9, got '" + t + "'");
            }
        }
    }

    private String portExample() {
        return format == Format.IBNETDISCOVER ? "[1](2c903000e0b73) \"S-0002c902004a0b18\"[2]" : "[1] \"node\"[2]";
    }

    private void include(String name, Path dir, Where where, int depth) throws TopologyException {
        if (depth + 1 >= MAX_INCLUDE_DEPTH) {
            throw where.error("includes nested deeper than " + MAX_INCLUDE_DEPTH + " (a file including itself?)");
        }
        Path file = dir.resolve(name);
        List<String> lines;
        try {
            lines = lines(name, Files.readAllBytes(file));
        } catch (IOException e) {
            throw where.error("cannot read included file '" + name + "': " + e);
        }
        Path inner = file.toAbsolutePath().getParent();
        read(name, lines, inner, " (included from " + where + where.chain() + ")", depth + 1);
    }

    private void setting(String key, String value, Where where) throws TopologyException {
        switch (key) {
            case "vendid" -> pendingVendorId = (int) number(value, 24, where);
            case "devid" -> pendingDeviceId = (int) number(value, 16, where);
            case "sysimgguid" -> pendingSystemImageGuid = number(value, 64, where);
            case "switchguid" -> {
                int paren = value.indexOf('(');
                if (paren >= 0) {
                    if (!value.endsWith(")")) {
                        throw where.error("expected switchguid=0x<guid>(<port guid>), got '" + value + "'");
                    }
                    pendingSwitchPortGuid = hex(value.substring(paren + 1, value.length() - 1), where);
                    value = value.substring(0, paren);
                }
                pendingGuid.put(NodeType.SWITCH, number(value, 64, where));
            }
            case "caguid", "hcaguids" -> pendingGuid.put(NodeType.CA, number(value, 64, where));
            case "rtguid" -> pendingGuid.put(NodeType.ROUTER, number(value, 64, where));
            case "width" -> netWidth = widthOption(value, where);
            case "speed" -> netSpeedMask = speedMask(value, where);
            case "extspeed" -> netExtSpeedMask = extSpeedMask(value, where);
            case "pdebug" -> {
                // ibsim's parser debugging switch
            }
            case "module" -> throw where.error("ibsim's module= name prefixes are not supported");
            default -> throw where.error("unknown setting '" + key + "': expected vendid, devid, sysimgguid, "
                    + "switchguid, caguid, rtguid, width, speed or extspeed");
        }
    }

    private void node(Matcher m, Where where) throws TopologyException {
        NodeType type = switch (m.group(1)) {
            case "Switch" -> NodeType.SWITCH;
            case "Rt" -> NodeType.ROUTER;
            default -> NodeType.CA;
        };
        int ports = small(m.group(2));
        if (ports < 1 || ports > MAX_PORTS) {
            throw where.error("a node has 1 to " + MAX_PORTS + " ports, got " + m.group(2));
        }
        String id = m.group(3);
        if (id.isEmpty()) {
            throw where.error("empty node name");
        }
        if (byId.containsKey(id)) {
            throw where.error("node \"" + id + "\" is already defined at " + byId.get(id).where);
        }
        String rest = m.group(4).strip();
        String description = id;
        String tail = "";
        if (!rest.isEmpty()) {
            if (!rest.startsWith("#")) {
                throw where.error("expected # \"description\" after the node name, got '" + rest + "'");
            }
            String c = rest.substring(1).strip();
            if (c.startsWith("\"")) {
                int last = c.lastIndexOf('"');
                if (last == 0) {
                    throw where.error("unterminated description: " + c);
                }
                description = NodeDescriptionText.unquote(c.substring(1, last));
                tail = c.substring(last + 1);
            } else {
                int cut = c.length();
                for (String word : new String[] {" enhanced port ", " base port ", " lid ", " lmc "}) {
                    int at = (" " + c).indexOf(word);
                    if (at >= 0) {
                        cut = Math.min(cut, Math.max(0, at - 1));
                    }
                }
                description = c.substring(0, cut).strip();
                tail = c.substring(cut);
                if (description.isEmpty()) {
                    description = id;
                }
            }
        }
        long guid = guid(type, id, ports, where);
        Pending p = new Pending(type, id, description, ports, guid,
                pendingSystemImageGuid != null ? pendingSystemImageGuid : guid,
                pendingVendorId != null ? pendingVendorId : type == NodeType.CA ? CA_VENDOR_ID : SWITCH_VENDOR_ID,
                pendingDeviceId != null ? pendingDeviceId : type == NodeType.CA ? CA_DEVICE_ID : SWITCH_DEVICE_ID,
                type == NodeType.SWITCH && tail.contains("enhanced port 0"), where);
        Matcher lid = LID.matcher(tail);
        if (type == NodeType.SWITCH && lid.find()) {
            p.baseLid = lidValue(lid.group(1), where);
            p.baseLidPort = 0;
        }
        if (type == NodeType.SWITCH) {
            p.portGuids[0] = pendingSwitchPortGuid != null ? pendingSwitchPortGuid : guid;
        }
        pendingSwitchPortGuid = null;
        pendingSystemImageGuid = null;
        pendingVendorId = null; // ibsim resets vendid and sysimgguid after each node but keeps devid
        nodes.add(p);
        byId.put(id, p);
        byGuid.put(guid, p);
        current = p;
    }

    /** The file's GUID for a node if it has one, else the next from a guid base, else by position. */
    private long guid(NodeType type, String id, int ports, Where where) throws TopologyException {
        Matcher g = GUID_ID.matcher(id);
        Long fromId = g.matches() ? Long.parseUnsignedLong(g.group(1), 16) : null;
        Long explicit = pendingGuid.remove(type);
        long guid;
        if (explicit != null) {
            if (fromId != null && !fromId.equals(explicit)) {
                throw where.error(
                        String.format("node \"%s\" does not match the GUID 0x%x set before it", id, explicit));
            }
            guid = explicit;
        } else if (fromId != null) {
            guid = fromId;
        } else if (nextGuid.containsKey(type)) {
            guid = nextGuid.get(type);
        } else {
            long prefix = type == NodeType.SWITCH ? SWITCH_GUID_PREFIX : CA_GUID_PREFIX;
            guid = prefix | ((long) (nodes.size() + 1) << 8);
        }
        if (explicit != null || nextGuid.containsKey(type)) {
            // ibsim reserves one GUID per switch and ports + 1 per CA
            nextGuid.put(type, guid + (type == NodeType.SWITCH ? 1 : ports + 1));
        }
        if (guid == 0) {
            throw where.error("node \"" + id + "\" has GUID 0, which IB reserves");
        }
        Pending other = byGuid.get(guid);
        if (other != null) {
            throw where.error(String.format("node \"%s\" has GUID 0x%016x, already used by \"%s\" at %s", id, guid,
                    other.id, other.where));
        }
        return guid;
    }

    private void port(String t, Where where) throws TopologyException {
        if (current == null) {
            throw where.error("port line outside a node: a Switch, Hca, Ca or Rt line must come before '" + t + "'");
        }
        Matcher m = PORT.matcher(t);
        if (!m.matches()) {
            throw where.error("expected a port line like " + portExample() + ", got '" + t + "'");
        }
        Pending n = current;
        int port = small(m.group(1));
        if (port == 0 && n.type == NodeType.SWITCH) {
            throw where.error("port 0 is the switch's management port and has no cable");
        }
        if (port < 1 || port > n.portCount) {
            throw where.error("\"" + n.id + "\" has ports 1.." + n.portCount + ", got [" + m.group(1) + "]");
        }
        if (n.ports[port] != null) {
            throw where.error("port [" + port + "] of \"" + n.id + "\" is already listed at " + n.ports[port].where);
        }
        if (m.group(2) != null) {
            if (n.type == NodeType.SWITCH) {
                throw where.error("switch ports share the port-0 GUID; no (guid) after a switch port number");
            }
            n.portGuids[port] = hex(m.group(2), where);
        }
        String peer = m.group(3);
        if (peer.isEmpty()) {
            throw where.error("empty peer name in '" + t + "'");
        }
        if (peer.contains("@")) {
            throw where.error("ibsim port aliases (@...) are not supported, got '" + t + "'");
        }
        int peerPort = m.group(4) != null ? small(m.group(4)) : 1;
        if (peerPort < 1 || peerPort > MAX_PORTS) {
            throw where.error("expected a peer port number 1.." + MAX_PORTS + ", got [" + m.group(4) + "]");
        }
        Long peerGuid = m.group(5) != null ? hex(m.group(5), where) : null;

        String rest = m.group(6);
        int hash = rest.indexOf('#');
        String options = hash >= 0 ? rest.substring(0, hash) : rest;
        String comment = hash >= 0 ? rest.substring(hash + 1) : "";
        String before = comment;
        String after = comment;
        int q1 = comment.indexOf('"');
        if (q1 >= 0) {
            int q2 = comment.lastIndexOf('"');
            if (q2 == q1) {
                throw where.error("unterminated peer description in '" + t + "'");
            }
            before = comment.substring(0, q1);
            after = comment.substring(q2 + 1);
        }
        Map<String, String> opts = new HashMap<>();
        for (String token : BLANKS.split(options.strip())) {
            if (token.startsWith(IPOIB_OPTION)) {
                ipoibOption(n, port, token.substring(IPOIB_OPTION.length()), where);
            } else if (!token.isEmpty()) {
                option(token, opts, where);
            }
        }
        LinkWidth width = null;
        LinkSpeed speed = null;
        Matcher ws = WIDTH_SPEED.matcher(after);
        if (ws.find()) {
            try {
                width = LinkWidth.ofLanes(Integer.parseInt(ws.group(1)));
            } catch (IllegalArgumentException e) {
                throw where.error("no " + ws.group(1) + "x link width: expected 1x, 2x, 4x, 8x or 12x");
            }
            speed = LinkSpeed.parse(ws.group(2));
        }
        if (width == null) {
            // ibnetdiscover -f restates the active width and speed as "s=1 w=2 v=4" after "4xHDR": the
            // width-speed word says more (s= cannot tell FDR from QDR), so those only count without it
            for (String token : BLANKS.split(after.strip())) {
                if (OPTION.matcher(token).matches()) {
                    option(token, opts, where);
                }
            }
        }
        if (opts.containsKey("w")) {
            width = widthOption(opts.get("w"), where);
        }
        if (opts.containsKey("s") || opts.containsKey("e")) {
            int s = opts.containsKey("s") ? speedMask(opts.get("s"), where) : 0;
            int e = opts.containsKey("e") ? extSpeedMask(opts.get("e"), where) : 0;
            speed = speedOf(s, e);
        }
        if (width == null) {
            width = netWidth;
        }
        if (speed == null && (netSpeedMask != 0 || netExtSpeedMask != 0)) {
            speed = speedOf(netSpeedMask, netExtSpeedMask);
        }
        Matcher lid = LID.matcher(before);
        if (n.type != NodeType.SWITCH && lid.find() && port < n.baseLidPort) {
            n.baseLid = lidValue(lid.group(1), where);
            n.baseLidPort = port;
        }
        n.ports[port] = new PortLine(port, peer, peerPort, width, speed, peerGuid, where);
    }

    private void option(String token, Map<String, String> opts, Where where) throws TopologyException {
        Matcher o = OPTION.matcher(token);
        if (!o.matches() || !(o.group(1).equals("w") || o.group(1).equals("s") || o.group(1).equals("e")
                || o.group(1).equals("v"))) {
            throw where.error("expected port options w=, s=, e= or ipoib=, got '" + token + "'");
        }
        opts.put(o.group(1), o.group(2));
    }

    /** {@code ipoib=A.B.C.D/N}: the address of a CA port's IPoIB interface, one port per address. */
    private void ipoibOption(Pending n, int port, String value, Where where) throws TopologyException {
        String what = IPOIB_OPTION + value + " on " + label(n.id, port);
        if (n.type != NodeType.CA) {
            throw where.error(what + ": only a CA port has an IPoIB interface; move it to the HCA's port line");
        }
        IpoibAddress address;
        try {
            address = IpoibAddress.parse(value);
        } catch (IllegalArgumentException e) {
            throw where.error(what + ": " + e.getMessage() + "; give the port's IPv4 address and prefix, like "
                    + IPOIB_OPTION + "10.1.0.1/24");
        }
        String owner = ipoibOwner.putIfAbsent(address.address(), label(n.id, port) + " (" + where + ")");
        if (owner != null) {
            throw where.error(what + ": " + address.dotted() + " is already the address of " + owner
                    + "; give each port an address of its own");
        }
        n.ipoib[port] = address;
    }

    /** ibsim's w= is a LinkWidthEnabled mask; the link trains to its widest width. */
    private static LinkWidth widthOption(String value, Where where) throws TopologyException {
        long w = number(value, 8, where);
        if (w < 1 || w > 31) {
            throw where.error("width mask " + value + " must be 1..31 (1=1x, 2=4x, 4=8x, 8=12x, 16=2x)");
        }
        return LinkWidth.widestIn((int) w);
    }

    private static int speedMask(String value, Where where) throws TopologyException {
        long s = number(value, 8, where);
        if (s > 7) {
            throw where.error("speed mask " + value + " must be 0..7 (1=SDR, 2=DDR, 4=QDR)");
        }
        return s == 0 ? 4 : (int) s; // ibsim: 0 means QDR
    }

    private static int extSpeedMask(String value, Where where) throws TopologyException {
        long e = number(value, 8, where);
        if (e > 15) {
            throw where.error("extended speed mask " + value + " must be 0..15 (1=FDR, 2=EDR, 4=HDR, 8=NDR)");
        }
        return (int) e;
    }

    /** The fastest speed in the masks: an extended one when any, else SDR/DDR/QDR. */
    private static LinkSpeed speedOf(int mask, int extMask) {
        if (extMask != 0) {
            return LinkSpeed.ofPortInfo(LinkSpeed.QDR.linkSpeedActive(), Integer.highestOneBit(extMask));
        }
        return mask == 0 ? null : LinkSpeed.ofPortInfo(Integer.highestOneBit(mask), 0);
    }

    /** Joins the port lines into links: each cable once, both ends agreeing when both are listed. */
    private List<LinkSpec> link() throws TopologyException {
        List<LinkSpec> links = new ArrayList<>();
        for (Pending n : nodes) {
            for (PortLine pl : n.ports) {
                if (pl == null || n.cabled[pl.port()]) {
                    continue;
                }
                Where where = pl.where();
                Pending peer = byId.get(pl.peerId());
                if (peer == null) {
                    throw where.error(label(n.id, pl.port()) + " is cabled to \"" + pl.peerId() + "\", which is not defined");
                }
                if (pl.peerPort() > peer.portCount) {
                    throw where.error(label(n.id, pl.port()) + " is cabled to " + label(peer.id, pl.peerPort()) + ", but \"" + peer.id + "\" has ports 1.."
                            + peer.portCount);
                }
                if (peer == n && pl.peerPort() == pl.port()) {
                    throw where.error(label(n.id, pl.port()) + " is cabled to itself");
                }
                PortLine back = peer.ports[pl.peerPort()];
                LinkWidth width = pl.width();
                LinkSpeed speed = pl.speed();
                if (back != null) {
                    if (!back.peerId().equals(n.id) || back.peerPort() != pl.port()) {
                        Where later = back.where().line() > where.line() ? back.where() : where;
                        throw later.error(label(n.id, pl.port()) + " (" + where + ") is cabled to "
                                + label(peer.id, pl.peerPort()) + ", but " + label(peer.id, pl.peerPort()) + " ("
                                + back.where() + ") is cabled to \"" + back.peerId() + "\"[" + back.peerPort() + "]");
                    }
                    if (width != null && back.width() != null && width != back.width()) {
                        throw back.where().error("the two ends of " + label(n.id, pl.port()) + " - "
                                + label(peer.id, pl.peerPort()) + " disagree on width: "
                                + width.label() + " at " + where + ", " + back.width().label() + " here");
                    }
                    if (speed != null && back.speed() != null && speed != back.speed()) {
                        throw back.where().error("the two ends of " + label(n.id, pl.port()) + " - "
                                + label(peer.id, pl.peerPort()) + " disagree on speed: "
                                + speed + " at " + where + ", " + back.speed() + " here");
                    }
                    width = width != null ? width : back.width();
                    speed = speed != null ? speed : back.speed();
                    peerGuid(n, pl.port(), back.peerGuid(), back.where());
                } else if (peer.cabled[pl.peerPort()]) {
                    throw where.error(label(n.id, pl.port()) + " is cabled to " + label(peer.id, pl.peerPort()) + ", which already has a cable");
                }
                peerGuid(peer, pl.peerPort(), pl.peerGuid(), where);
                n.cabled[pl.port()] = true;
                peer.cabled[pl.peerPort()] = true;
                links.add(new LinkSpec(n.id, pl.port(), peer.id, pl.peerPort(), width, speed));
            }
        }
        return links;
    }

    /** A port GUID the far end printed, "peer"[2](guid): it must agree with the node's own. */
    private static void peerGuid(Pending node, int port, Long guid, Where where) throws TopologyException {
        if (guid == null) {
            return;
        }
        int index = node.type == NodeType.SWITCH ? 0 : port;
        Long known = node.portGuids[index];
        if (known == null && node.type != NodeType.SWITCH) {
            node.portGuids[index] = guid;
        } else if (!guid.equals(known == null ? node.guid + port : known)) {
            throw where.error(String.format("port GUID %x given for \"%s\"[%d] disagrees with its own, %x", guid,
                    node.id, port, known == null ? node.guid + port : known));
        }
    }

    private List<NodeSpec> specs() throws TopologyException {
        List<NodeSpec> specs = new ArrayList<>();
        Map<Long, String> portGuidOwner = new HashMap<>();
        for (Pending n : nodes) {
            List<Long> guids = new ArrayList<>();
            if (n.type == NodeType.SWITCH) {
                guids.add(n.portGuids[0]);
            } else {
                for (int p = 1; p <= n.portCount; p++) {
                    long g = n.portGuids[p] != null ? n.portGuids[p] : n.guid + p;
                    String owner = portGuidOwner.putIfAbsent(g, n.id + "[" + p + "]");
                    if (owner != null) {
                        throw n.where.error(String.format("port GUID %016x of \"%s\"[%d] is also that of \"%s",
                                g, n.id, p, owner.replace("[", "\"[")));
                    }
                    guids.add(g);
                }
            }
            Map<Integer, IpoibAddress> ipoib = new HashMap<>();
            for (int p = 1; p <= n.portCount; p++) {
                if (n.ipoib[p] != null) {
                    ipoib.put(p, n.ipoib[p]);
                }
            }
            specs.add(new NodeSpec(n.type, n.id, n.guid, n.systemImageGuid, n.description, n.portCount, guids,
                    n.vendorId, n.deviceId, 0, n.baseLid, n.enhancedPort0, ipoib));
        }
        return specs;
    }

    /** "node"[port], as messages name a port. */
    private static String label(String id, int port) {
        return "\"" + id + "\"[" + port + "]";
    }

    private static int small(String digits) {
        return digits.length() > 4 ? Integer.MAX_VALUE : Integer.parseInt(digits);
    }

    private static int lidValue(String digits, Where where) throws TopologyException {
        int lid = small(digits);
        if (lid >= 0xC000) {
            throw where.error("LID " + digits + " is not a unicast LID (1..49151)");
        }
        return lid;
    }

    /** strtoull with base 0, as ibsim reads values: 0x... hex, else decimal. */
    private static long number(String value, int bits, Where where) throws TopologyException {
        String v = value.strip();
        long n;
        try {
            n = v.startsWith("0x") || v.startsWith("0X") ? Long.parseUnsignedLong(v.substring(2), 16)
                    : Long.parseUnsignedLong(v);
        } catch (NumberFormatException e) {
            throw where.error("expected a number like 0x2c9 or 12, got '" + value + "'");
        }
        if (bits < 64 && (n >>> bits) != 0) {
            throw where.error("'" + value + "' does not fit in " + bits + " bits");
        }
        return n;
    }

    /** ibnetdiscover prints port GUIDs as bare hex, "(2c903000e0b73)". */
    private static long hex(String value, Where where) throws TopologyException {
        String v = value.startsWith("0x") || value.startsWith("0X") ? value.substring(2) : value;
        try {
            return Long.parseUnsignedLong(v, 16);
        } catch (NumberFormatException e) {
            throw where.error("expected a hexadecimal GUID, got '" + value + "'");
        }
    }
}
