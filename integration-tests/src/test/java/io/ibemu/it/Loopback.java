package io.ibemu.it;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;

/**
 * TCP on the host's loopback for the tools' out-of-band exchange (ibv_*_pingpong, qperf,
 * ucx_perftest): instances share the host's network, and so do other test runs on the machine,
 * so a port is one the kernel hands out, and a client starts once its server listens, not after
 * a guessed sleep.
 */
final class Loopback {
    private Loopback() {
    }

    /** A port nobody listens on now: the kernel's pick for an ephemeral bind. */
    static int freePort() {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * A shell line that returns once something listens on TCP {@code port} (IPv4 or IPv6, as
     * /proc/net/tcp* show state 0A), or as soon as the process {@code $pidVar} has ended.
     */
    static String awaitListening(int port, String pidVar) {
        return awaitListening(String.format("%04X", port), pidVar);
    }

    /** As {@link #awaitListening(int, String)}, for the port in the shell variable {@code portVar}. */
    static String awaitListeningOn(String portVar, String pidVar) {
        return awaitListening("$(printf %04X $" + portVar + ")", pidVar);
    }

    private static String awaitListening(String hexPort, String pidVar) {
        return String.format("until grep -q \":%s [0-9A-F]*:0000 0A \" /proc/net/tcp /proc/net/tcp6 2>/dev/null; "
                + "do kill -0 $%s 2>/dev/null || break; sleep 0.1; done", hexPort, pidVar);
    }
}
