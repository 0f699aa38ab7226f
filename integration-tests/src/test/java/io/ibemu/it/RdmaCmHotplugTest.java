package io.ibemu.it;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * The RDMA CM as an ib_client: an HCA plugged in while servers listen on the any address is
 * listened on too (cma_add_one), and one taken away tells the ids on it with DEVICE_REMOVAL
 * (cma_remove_one), after which ucma closes them, while listens on every device only stop
 * listening there. Unmodified rping on three-hosts.net with OpenSM and IPoIB: ib0 (HCA a) moved
 * into a namespace of its own is the client host, so its requests cross the switches.
 */
class RdmaCmHotplugTest {
    @Test
    void aPluggedHcaIsListenedOnAndARemovedOneTellsItsIds() {
        Path topology = Ibemu.root().resolve("integration-tests/src/test/resources/topology/three-hosts.net");
        try (Ibemu ib = Ibemu.start("--topology", topology.toString(), "--local", "a", "--local", "b", "--sm",
                "opensm", "--ipoib")) {
            String script = String.join("\n",
                    "set -u",
                    "ctl() { \"$LAUNCHER\" ctl --name \"$INSTANCE\" \"$@\"; }",
                    // the IB CM listeners of an rdma_cm TCP port, one per device listened on
                    "listening() { ctl cm | grep -c \"LISTEN service $(printf '0x%016x' $((0x1060000 + $1)))\"; }",
                    "addr() { ip -o -4 addr show $1 | awk '{print $4}'; }",
                    "for i in $(seq 600); do [ -n \"$(addr ib0)\" ] && [ -n \"$(addr ib1)\" ] "
                            + "&& grep -q ACTIVE /sys/class/infiniband/ibemu1/ports/1/state && break; sleep 0.1; done",
                    "AP=$(addr ib0); A=${AP%/*}; L=${AP#*/}; B=$(addr ib1); B=${B%/*}",
                    "out=$(mktemp -d)",
                    "rping -s -a 0.0.0.0 -p 7101 -C 1 -V > $out/s1 2>&1 &",
                    "s1=$!",
                    "rping -s -a 0.0.0.0 -p 7102 -C 1 -V > $out/s2 2>&1 &",
                    "s2=$!",
                    "for i in $(seq 300); do [ $(listening 7101) = 2 ] && [ $(listening 7102) = 2 ] && break; sleep 0.1; done",
                    "echo \"before: $(listening 7101) $(listening 7102)\"",
                    "ctl hca add c > /dev/null",
                    "for i in $(seq 600); do [ -n \"$(addr ib2)\" ] "
                            + "&& grep -q ACTIVE /sys/class/infiniband/ibemu2/ports/1/state && break; sleep 0.1; done",
                    "C=$(addr ib2); C=${C%/*}",
                    "echo \"plugged: $(listening 7101) $(listening 7102)\"",
                    PeerHost.enter("ib0", "$A/$L", ""),
                    "client() { for try in $(seq 50); do timeout 120 nsenter --net=/proc/$peer/ns/net -- "
                            + "rping -c -a $1 -p $2 -C 1 -V -v > $out/c$2 2>&1 && return 0; kill -0 $3 2>/dev/null || return 1; "
                            + "sleep 0.2; done; return 1; }",
                    "client $C 7101 $s1; c1=$?",
                    "wait $s1; r1=$?",
                    "rping -s -a $C -p 7103 > $out/s3 2>&1 &",
                    "s3=$!",
                    "for i in $(seq 300); do [ $(listening 7103) = 1 ] && break; sleep 0.1; done",
                    "ctl hca remove ibemu2 > /dev/null",
                    "wait $s3; r3=$?",
                    "echo \"removed: $(listening 7102) $(listening 7103)\"",
                    "client $B 7102 $s2; c2=$?",
                    "wait $s2; r2=$?",
                    "echo \"== to C through the plugged HCA: client $c1 server $r1\"; cat $out/c7101 $out/s1",
                    "echo \"== bound to C, removed: $r3\"; cat $out/s3",
                    "echo \"== to B after the removal: client $c2 server $r2\"; cat $out/c7102 $out/s2",
                    "rm -rf $out",
                    PeerHost.leave("ib0"),
                    "ip addr add $AP dev ib0 && ip link set ib0 up",
                    "for i in $(seq 100); do ctl objects | grep -q 'rdma_cm cm_id=0' && break; sleep 0.1; done",
                    "ctl objects | grep -o 'rdma_cm cm_id=[0-9]*'");
            Result r = ib.exec(Duration.ofSeconds(300), "env", "LAUNCHER=" + Ibemu.script(), "INSTANCE=" + ib.name(),
                    "bash", "-c", script);
            String out = r.stdout();
            assertTrue(out.contains("before: 2 2\nplugged: 3 3\n"), "the plugged HCA is listened on: " + r);
            assertTrue(out.contains("removed: 2 0\n"), "the removed HCA's listeners are gone: " + r);
            assertTrue(out.matches("(?s).*== to C through the plugged HCA: client 0 server 0\\n.*rdma-ping-0.*"), r.toString());
            assertTrue(out.matches("(?s).*== bound to C, removed: [1-9][0-9]*\\n[^=]*cma detected device removal.*"),
                    r.toString());
            assertTrue(out.matches("(?s).*== to B after the removal: client 0 server 0\\n.*rdma-ping-0.*"), r.toString());
            assertTrue(out.endsWith("rdma_cm cm_id=0\n"), "no id is left: " + r);
        }
    }
}
