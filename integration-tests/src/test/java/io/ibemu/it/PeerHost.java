package io.ibemu.it;

/**
 * Bash for the IPoIB tests: an interface moved into a network namespace of its own, as another
 * host's, and home again. The namespace's holder is {@code $peer}; {@code in_peer} runs a command
 * in it.
 */
final class PeerHost {
    private PeerHost() {
    }

    /**
     * Moves {@code iface} into a new network namespace ({@code nsenterOptions}: e.g.
     * "--preserve-credentials" without root), gives it {@code address} (with its prefix), brings
     * it up and waits for its first answer: a bound on waiting for OpenSM's multicast routes,
     * never a measure of speed.
     */
    static String enter(String iface, String address, String nsenterOptions) {
        String bare = address.substring(0, address.indexOf('/'));
        return """
                unshare -n sleep infinity & peer=$!
                while [ "$(readlink /proc/$peer/ns/net)" = "$(readlink /proc/self/ns/net)" ]; do sleep 0.1; done
                in_peer() { nsenter NSENTER--net=/proc/$peer/ns/net -- "$@"; }
                ip link set IFACE netns $peer
                in_peer ip link set lo up
                in_peer ip addr add ADDRESS dev IFACE
                in_peer ip link set IFACE up
                for i in $(seq 180); do ping -n -c 1 -W 1 BARE >/dev/null && break; sleep 0.5; done
                """.replace("NSENTER", nsenterOptions.isEmpty() ? "" : nsenterOptions + " ").replace("IFACE", iface)
                .replace("ADDRESS", address).replace("BARE", bare);
    }

    /** Moves {@code iface} home and ends the namespace. */
    static String leave(String iface) {
        return "in_peer ip link set " + iface + " netns $$\nkill $peer\n";
    }
}
