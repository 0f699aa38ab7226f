package io.ibemu.emulator.fabric;

import io.ibemu.emulator.mad.LinearForwardingTable;
import io.ibemu.emulator.topology.NodeType;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The unicast routes of one subnet, as an SM computes its switches' LinearForwardingTables:
 * min-hop, restricted to up/down paths when that reaches every LID (OpenSM's updn engine:
 * switches ranked by distance from the roots, a path may go up, then only down, so the channel
 * dependencies form no cycle). Each switch takes its equal next hops in turn, one LID after
 * another, so parallel links and spines share the LIDs evenly (OpenSM's minhop balances by
 * counting the LIDs on each port; a turn costs no scan and is as even on a fat tree, where a
 * switch's ways to most destinations are the same set of ports). Works on the switches of one
 * connected subnet given with their ports' LIDs; writes the tables with the fabric lock held.
 */
final class UnicastRouting {
    /** Which engine produced the tables. */
    enum Engine { UPDN, MINHOP }

    /** What was computed: the engine, how many root switches up/down ranked from, the highest LID. */
    record Result(Engine engine, int roots, int maxLid) {
    }

    private static final int UNSET = -1;

    private final Node[] switches;
    private final long[] guid;
    /** Switch-to-switch cables, CSR: the entries of switch s are adjStart[s] .. adjStart[s + 1] - 1. */
    private final int[] adjStart;
    private final int[] adjPort;
    private final int[] adjSwitch;
    /** Per switch, the LIDs it delivers itself: its own (port 0) and those of the CA ports on its cables. */
    private final int[][] localLids;
    private final int[][] localPorts;
    private final int[] rank;
    /** Per cable entry: going along it is up (a strict order, so the reverse entry is down). */
    private final boolean[] edgeUp;
    private final int roots;
    private final int maxLid;

    /**
     * @param switchList the subnet's switches
     * @param lidOf the LID of every managed port of the subnet (switch port 0, CA ports), 0 if none
     */
    UnicastRouting(List<Node> switchList, Map<Port, Integer> lidOf) {
        int n = switchList.size();
        switches = switchList.toArray(new Node[0]);
        guid = new long[n];
        Map<Node, Integer> index = new HashMap<>(n * 2);
        for (int i = 0; i < n; i++) {
            index.put(switches[i], i);
            guid[i] = switches[i].guid();
        }
        adjStart = new int[n + 1];
        int edges = 0;
        for (int i = 0; i < n; i++) {
            adjStart[i] = edges;
            for (Port p : switches[i].ports()) {
                Port peer = linkedPeer(p);
                if (peer != null && peer.node().type() == NodeType.SWITCH && index.containsKey(peer.node())) {
                    edges++;
                }
            }
        }
        adjStart[n] = edges;
        adjPort = new int[edges];
        adjSwitch = new int[edges];
        localLids = new int[n][];
        localPorts = new int[n][];
        int top = 0;
        for (int i = 0; i < n; i++) {
            int e = adjStart[i];
            int[] lids = new int[switches[i].portCount() + 1];
            int[] ports = new int[lids.length];
            int count = 0;
            int own = lidOf.getOrDefault(switches[i].port(0), 0);
            if (own != 0) {
                lids[count] = own;
                ports[count++] = 0;
            }
            for (Port p : switches[i].ports()) {
                Port peer = linkedPeer(p);
                if (peer == null) {
                    continue;
                }
                if (peer.node().type() == NodeType.SWITCH) {
                    Integer j = index.get(peer.node());
                    if (j != null) {
                        adjPort[e] = p.number();
                        adjSwitch[e++] = j;
                    }
                } else {
                    int lid = lidOf.getOrDefault(peer, 0);
                    if (lid != 0) {
                        lids[count] = lid;
                        ports[count++] = p.number();
                    }
                }
            }
            localLids[i] = Arrays.copyOf(lids, count);
            localPorts[i] = Arrays.copyOf(ports, count);
        }
        for (int lid : lidOf.values()) {
            top = Math.max(top, lid);
        }
        maxLid = top;
        rank = new int[n];
        roots = rankFromRoots();
        edgeUp = new boolean[edges];
        for (int i = 0; i < n; i++) {
            for (int e = adjStart[i]; e < adjStart[i + 1]; e++) {
                edgeUp[e] = isUp(i, adjSwitch[e]);
            }
        }
    }

    /** The port at the other end of a cable that is plugged in and trained, else null. */
    static Port linkedPeer(Port p) {
        if (p.number() == 0 || p.physicalState() != PhysPortState.LINK_UP) {
            return null;
        }
        return p.peer().orElse(null);
    }

    /**
     * Ranks the switches as updn does without a root file: the roots are the switches farthest
     * from every CA (a fat tree's top level), the rank of the others is their distance from the
     * nearest root (OpenSM updn_subn_rank). Returns the number of roots.
     */
    private int rankFromRoots() {
        int n = switches.length;
        int[] height = new int[n];
        Arrays.fill(height, UNSET);
        int[] queue = new int[n];
        int tail = 0;
        for (int i = 0; i < n; i++) {
            if (Arrays.stream(localPorts[i]).anyMatch(port -> port != 0)) {
                height[i] = 0;
                queue[tail++] = i;
            }
        }
        if (tail == 0) {
            // no CA below any switch: every switch is a root, GUIDs order them
            Arrays.fill(rank, 0);
            return n;
        }
        bfs(queue, tail, height);
        int top = 0;
        for (int h : height) {
            top = Math.max(top, h);
        }
        tail = 0;
        Arrays.fill(rank, UNSET);
        for (int i = 0; i < n; i++) {
            if (height[i] == top || height[i] == UNSET) {
                rank[i] = 0;
                queue[tail++] = i;
            }
        }
        int count = tail;
        bfs(queue, tail, rank);
        return count;
    }

    /** Breadth-first distances over the switch cables from the {@code tail} sources in {@code queue}. */
    private void bfs(int[] queue, int tail, int[] dist) {
        for (int head = 0; head < tail; head++) {
            int v = queue[head];
            for (int e = adjStart[v]; e < adjStart[v + 1]; e++) {
                int w = adjSwitch[e];
                if (dist[w] == UNSET) {
                    dist[w] = dist[v] + 1;
                    queue[tail++] = w;
                }
            }
        }
    }

    /** Going from switch a to switch b is up: towards the roots, or on equal rank to the lower GUID (updn). */
    private boolean isUp(int a, int b) {
        return rank[b] < rank[a] || rank[b] == rank[a] && Long.compareUnsigned(guid[b], guid[a]) < 0;
    }

    /**
     * Computes every switch's LinearForwardingTable and installs it with LinearFDBTop = the
     * highest LID: up/down if it takes every switch to every CA LID, else plain min-hop.
     */
    Result install() {
        for (Node sw : switches) {
            sw.switchTables().resetLinear(maxLid);
        }
        Engine engine = route(true) ? Engine.UPDN : Engine.MINHOP;
        if (engine == Engine.MINHOP) {
            route(false);
        }
        return new Result(engine, roots, maxLid);
    }

    /**
     * Every destination switch's LIDs routed at every switch. Destinations are taken a chunk at a
     * time: a breadth-first search backwards from each gives every switch its hop count and
     * whether its way there is down only, kept as one column of a switch-by-destination matrix;
     * then each switch fills its own table along its row (one switch's table at a time, so the
     * writes stay in cache), through its best ports in turn. With up/down, a switch's own LID
     * that up/down cannot reach from another switch (root to root, as OpenSM's connect_roots
     * allows) gets a min-hop way there: only management traffic goes to a switch. Returns false
     * when up/down cannot reach a CA LID (tables half written: min-hop then writes every entry).
     */
    private boolean route(boolean upDown) {
        int n = switches.length;
        int chunk = Math.min(n, CHUNK);
        int[] hops = new int[n];
        boolean[] downOnly = new boolean[n];
        int[] queue = new int[n];
        int[] turn = new int[n];
        int[] candidates = new int[256];
        // way[v * chunk + j]: hops << 1 | down-only from switch v to destination d0 + j; -1: none
        short[] way = new short[n * chunk];
        short[] minWay = upDown ? new short[n * chunk] : null;
        for (int d0 = 0; d0 < n; d0 += chunk) {
            int width = Math.min(chunk, n - d0);
            for (int j = 0; j < width; j++) {
                int d = d0 + j;
                boolean complete = localLids[d].length == 0 || search(d, upDown, hops, downOnly, queue) == n;
                column(way, chunk, j, hops, downOnly, localLids[d].length > 0);
                if (upDown) {
                    boolean ownOnly = localLids[d].length == 1 && localPorts[d][0] == 0;
                    if (!complete && !ownOnly) {
                        return false;
                    }
                    if (!complete) {
                        search(d, false, hops, downOnly, queue);
                    }
                    column(minWay, chunk, j, hops, downOnly, !complete);
                }
            }
            fill(d0, width, chunk, way, minWay, upDown, edgeUp, turn, candidates);
        }
        return true;
    }

    /** Destinations taken together: a switch-by-destination matrix of shorts (3.4 MB at 1,651 switches). */
    private static final int CHUNK = 1024;

    private static void column(short[] way, int chunk, int j, int[] hops, boolean[] downOnly, boolean wanted) {
        for (int v = 0; v < hops.length; v++) {
            way[v * chunk + j] = !wanted || hops[v] == UNSET ? -1 : (short) (hops[v] << 1 | (downOnly[v] ? 1 : 0));
        }
    }

    /** Each switch's entries for the destinations d0 .. d0 + width - 1, switch by switch. */
    private void fill(int d0, int width, int chunk, short[] way, short[] minWay, boolean upDown, boolean[] edgeUp,
            int[] turn, int[] candidates) {
        for (int s = 0; s < switches.length; s++) {
            SwitchTables t = switches[s].switchTables();
            int r = turn[s];
            for (int j = 0; j < width; j++) {
                int d = d0 + j;
                int[] lids = localLids[d];
                if (lids.length == 0) {
                    continue;
                }
                if (d == s) {
                    for (int k = 0; k < lids.length; k++) {
                        t.setLinear(lids[k], localPorts[d][k]);
                    }
                    continue;
                }
                int count = way[s * chunk + j] >= 0 ? nextHops(s, j, chunk, way, upDown, edgeUp, candidates)
                        : minWay != null && minWay[s * chunk + j] >= 0
                                ? nextHops(s, j, chunk, minWay, false, edgeUp, candidates) : 0;
                if (count == 0) {
                    continue; // another subnet: no way there
                }
                if (r >= count) {
                    r %= count;
                }
                for (int lid : lids) {
                    t.setLinear(lid, candidates[r]);
                    if (++r == count) {
                        r = 0;
                    }
                }
            }
            turn[s] = r;
        }
    }

    /**
     * The ports of switch {@code s} one hop nearer destination column {@code j}, into {@code out};
     * with up/down, a switch whose way is down only goes down to one whose way is too, the others
     * go up. Returns the count.
     */
    private int nextHops(int s, int j, int chunk, short[] way, boolean upDown, boolean[] edgeUp, int[] out) {
        int mine = way[s * chunk + j];
        int wantHops = (mine >> 1) - 1;
        boolean downOnly = (mine & 1) != 0;
        int count = 0;
        for (int e = adjStart[s]; e < adjStart[s + 1]; e++) {
            int theirs = way[adjSwitch[e] * chunk + j];
            if (theirs < 0 || theirs >> 1 != wantHops) {
                continue;
            }
            if (upDown && (downOnly ? edgeUp[e] || (theirs & 1) == 0 : !edgeUp[e])) {
                continue;
            }
            out[count++] = adjPort[e];
        }
        return count;
    }

    /**
     * Hop counts to switch {@code d} (backwards from it, as updn's __updn_bfs_by_node), with
     * up/down: a hop u to v is taken if it goes up, or down to a switch whose way is down only;
     * a switch's way is down only if any of its shortest allowed ways is. Returns how many
     * switches were reached.
     */
    private int search(int d, boolean upDown, int[] hops, boolean[] downOnly, int[] queue) {
        Arrays.fill(hops, UNSET);
        hops[d] = 0;
        downOnly[d] = true;
        queue[0] = d;
        int tail = 1;
        for (int head = 0; head < tail; head++) {
            int v = queue[head];
            for (int e = adjStart[v]; e < adjStart[v + 1]; e++) {
                int u = adjSwitch[e];
                boolean up = !edgeUp[e]; // the hop u -> v is the reverse of v's entry e
                if (upDown && !up && !downOnly[v]) {
                    continue;
                }
                boolean uDownOnly = !upDown || !up;
                if (hops[u] == UNSET) {
                    hops[u] = hops[v] + 1;
                    downOnly[u] = uDownOnly;
                    queue[tail++] = u;
                } else if (hops[u] == hops[v] + 1 && uDownOnly) {
                    downOnly[u] = true;
                }
            }
        }
        return tail;
    }

    /** The next hop a switch's table gives for {@code lid}, {@link LinearForwardingTable#NO_PORT} if none. */
    static int nextPort(Node sw, int lid) {
        return sw.switchTables().route(lid);
    }
}
