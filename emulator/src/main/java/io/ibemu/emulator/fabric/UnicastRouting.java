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
 * dependencies form no cycle). Among equal next hops the port that carries fewest LIDs so far
 * is taken (OpenSM minhop's balancing), the lowest number on a tie. Works on the switches of one
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
     * One pass over every destination switch: a breadth-first search backwards from it gives each
     * switch its hop count and whether its way there is down only; the LIDs the destination
     * delivers are then routed at every switch through the least used of its best ports. With
     * up/down, a switch's own LID that up/down cannot reach from another switch (root to root,
     * as OpenSM's connect_roots allows) gets a min-hop step there: only management traffic goes
     * to a switch. Returns false, the tables half written, when up/down cannot reach a CA LID.
     */
    private boolean route(boolean upDown) {
        int n = switches.length;
        int[] hops = new int[n];
        boolean[] downOnly = new boolean[n];
        int[] minHops = upDown ? new int[n] : hops;
        boolean[] scratch = new boolean[n];
        int[] queue = new int[n];
        int[][] load = new int[n][];
        for (int i = 0; i < n; i++) {
            load[i] = new int[switches[i].portCount() + 1];
        }
        int[] candidates = new int[256];
        for (int d = 0; d < n; d++) {
            if (localLids[d].length == 0) {
                continue;
            }
            boolean complete = search(d, upDown, hops, downOnly, queue) == n;
            boolean ownOnly = localLids[d].length == 1 && localPorts[d][0] == 0;
            if (!complete && upDown) {
                if (!ownOnly) {
                    return false;
                }
                search(d, false, minHops, scratch, queue);
            }
            SwitchTables own = switches[d].switchTables();
            for (int k = 0; k < localLids[d].length; k++) {
                own.setLinear(localLids[d][k], localPorts[d][k]);
            }
            for (int s = 0; s < n; s++) {
                if (s == d) {
                    continue;
                }
                int count = hops[s] != UNSET ? nextHops(s, upDown, hops, downOnly, candidates)
                        : minHops[s] != UNSET ? nextHops(s, false, minHops, scratch, candidates) : 0;
                if (count == 0) {
                    continue; // another subnet: no way there
                }
                SwitchTables t = switches[s].switchTables();
                int[] used = load[s];
                for (int lid : localLids[d]) {
                    int best = candidates[0];
                    for (int c = 1; c < count; c++) {
                        if (used[candidates[c]] < used[best]) {
                            best = candidates[c];
                        }
                    }
                    used[best]++;
                    t.setLinear(lid, best);
                }
            }
        }
        return true;
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
                boolean up = isUp(u, v);
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

    /**
     * The ports of switch {@code s} one hop nearer, into {@code out}; with up/down, a switch whose
     * way is down only goes down to one whose way is too, the others go up. Returns the count.
     */
    private int nextHops(int s, boolean upDown, int[] hops, boolean[] downOnly, int[] out) {
        int count = 0;
        for (int e = adjStart[s]; e < adjStart[s + 1]; e++) {
            int v = adjSwitch[e];
            if (hops[v] != hops[s] - 1) {
                continue;
            }
            if (upDown && (downOnly[s] ? isUp(s, v) || !downOnly[v] : !isUp(s, v))) {
                continue;
            }
            out[count++] = adjPort[e];
        }
        return count;
    }

    /** The next hop a switch's table gives for {@code lid}, {@link LinearForwardingTable#NO_PORT} if none. */
    static int nextPort(Node sw, int lid) {
        return sw.switchTables().route(lid);
    }
}
