package io.ibemu.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * IP over InfiniBand (--ipoib): ib0 and ib1 for two local HCAs separated by two switches, under
 * OpenSM, carry ping, ARP, a broadcast ping and TCP across the fabric, stop at a cut cable and
 * resume after the restore (src/test/python/ipoib_check.py); the host's interfaces, addresses,
 * routes and neighbours are the same afterwards. Under --sm preset (no SA) the interfaces exist
 * without carrier, as a host's IPoIB whose broadcast join no SA answers; without --ipoib the
 * instance shares the host's network namespace as before.
 */
class IpoibTest {
    private static final Path TOPOLOGY = Ibemu.root().resolve("integration-tests/src/test/resources/topology/two-switches.net");

    /** The host's ip addr, ip route and neighbour entries (address, device, link-layer address; no states). */
    private static Set<String> hostNetwork() {
        Set<String> view = new TreeSet<>();
        for (String line : Ibemu.host("ip", "-o", "addr").assertOk().lines()) {
            view.add("addr " + line.replaceAll("\\s+valid_lft.*", ""));
        }
        for (String line : Ibemu.host("ip", "route").assertOk().lines()) {
            view.add("route " + line);
        }
        for (String line : Ibemu.host("ip", "neigh").assertOk().lines()) {
            String[] t = line.trim().split("\\s+");
            int lladdr = List.of(t).indexOf("lladdr");
            view.add("neigh " + t[0] + " " + t[2] + (lladdr > 0 ? " " + t[lladdr + 1] : ""));
        }
        return view;
    }

    @Test
    void pingArpTcpAndALinkCutAcrossTheFabricUnderOpenSm() {
        Set<String> before = hostNetwork();
        try (Ibemu ib = Ibemu.start("--topology", TOPOLOGY.toString(), "--local", "a", "--local", "b", "--sm",
                "opensm", "--ipoib")) {
            Path script = Ibemu.root().resolve("integration-tests/src/test/python/ipoib_check.py");
            Tap.assertPassed(ib.exec(Duration.ofSeconds(600), "/usr/bin/python3", script.toString(),
                    Ibemu.script().toString(), ib.name(), "a"));
            assertFalse(Ibemu.host("ip", "-o", "link").assertOk().stdout().contains(" ib0:"),
                    "the host has no ib0 while the instance runs");
        }
        Set<String> after = hostNetwork();
        Set<String> neighBefore = new TreeSet<>(before);
        // neighbours come and go on the host by themselves; only ours must never appear
        neighBefore.removeIf(s -> s.startsWith("neigh"));
        Set<String> addrRouteAfter = new TreeSet<>(after);
        addrRouteAfter.removeIf(s -> s.startsWith("neigh"));
        assertEquals(neighBefore, addrRouteAfter, "the host's addresses and routes");
        assertTrue(after.stream().noneMatch(s -> s.contains("169.254.77.")), "no neighbour of the IPoIB network on the host: " + after);
    }

    /**
     * P_Key children (ctl ipoib child add, as create_child): OpenSM's partition 0x8001 holds the
     * ports of a and b, not c; ib0.8001 and ib1.8001 talk, ib2.8001 has no carrier
     * (src/test/python/ipoib_pkey_check.py).
     */
    @Test
    void pkeyChildrenTalkOnlyWhereThePortsHoldTheKey() throws java.io.IOException {
        Path partitions = Files.createTempFile(Ibemu.tmpDir(), "partitions", ".conf");
        try {
            // port GUIDs of three-hosts.net's a and b (the topology's deterministic numbering)
            Files.writeString(partitions, """
                    Default=0x7fff, ipoib : ALL=full ;
                    blue=0x8001, ipoib : 0x0011750000000101=full, 0x0011750000000201=full ;
                    """);
            Path topology = Ibemu.root().resolve("integration-tests/src/test/resources/topology/three-hosts.net");
            try (Ibemu ib = Ibemu.start(Map.of("IBEMU_SM_OPTS", "-P " + partitions), "--topology",
                    topology.toString(), "--local", "a", "--local", "b", "--local", "c", "--sm", "opensm", "--ipoib")) {
                Path script = Ibemu.root().resolve("integration-tests/src/test/python/ipoib_pkey_check.py");
                Tap.assertPassed(ib.exec(Duration.ofSeconds(600), "/usr/bin/python3", script.toString(),
                        Ibemu.script().toString(), ib.name()));
            }
        } finally {
            Files.deleteIfExists(partitions);
        }
    }

    /**
     * Addresses from the topology: a's port has ipoib=10.42.0.101/24 in the file, b's has none and
     * takes --ipoib-net's host 2; ip addr shows both, ctl topology writes the address back, and with
     * ib1 moved into a namespace of its own (as another host) ping crosses the fabric both ways.
     */
    @Test
    void addressesFromTheTopologyAndTheNetworkForTheRestCarryPings() {
        Path topology = Ibemu.root().resolve("integration-tests/src/test/resources/topology/ipoib-addresses.net");
        try (Ibemu ib = Ibemu.start("--topology", topology.toString(), "--local", "a", "--local", "b", "--sm",
                "opensm", "--ipoib", "--ipoib-net", "10.42.0.0/24")) {
            String addrs = ib.exec("ip", "-o", "-4", "addr").assertOk().stdout();
            assertTrue(addrs.contains("ib0    inet 10.42.0.101/24 brd 10.42.0.255") && addrs.contains(
                    "ib1    inet 10.42.0.2/24 brd 10.42.0.255") && !addrs.contains("10.42.0.1/"), addrs);
            String written = Ibemu.ibemu("ctl", "--name", ib.name(), "topology").assertOk().stdout();
            assertTrue(written.contains("[1] ipoib=10.42.0.101/24\t\t# lid "), "ctl topology keeps the address\n"
                    + written);
            String script = overTheFabric("ib1", "10.42.0.2/24", "10.42.0.101");
            Result r = ib.exec(Duration.ofSeconds(300), "bash", "-c", script);
            assertTrue(r.stdout().contains("there=0 back=0") && r.stdout().contains(
                    "3 packets transmitted, 3 received"), r.toString());
        }
    }

    @Test
    void underPresetWithoutSaTheInterfacesHaveNoCarrier() {
        try (Ibemu ib = Ibemu.start(Map.of("IBEMU_IPOIB", "1"), "--topology", TOPOLOGY.toString(), "--local", "a",
                "--local", "b", "--sm", "preset", "--ipoib-net", "10.77.0.0/16")) {
            String links = ib.exec("ip", "-o", "link").assertOk().stdout();
            assertTrue(links.matches("(?s).*\\bib0: <NO-CARRIER,[^>]*UP>.*") && links.contains("ib1: <NO-CARRIER"),
                    "no carrier: the broadcast join has no SA to answer it\n" + links);
            String addrs = ib.exec("ip", "-o", "-4", "addr").assertOk().stdout();
            assertTrue(addrs.contains("ib0    inet 10.77.0.1/16") && addrs.contains("ib1    inet 10.77.0.2/16"), addrs);
            assertEquals("ib0\nib1\nlo\n", ib.exec("ls", "/sys/class/net").assertOk().stdout(),
                    "/sys/class/net shows the instance's network namespace, not the host's");
            assertEquals("2", ib.cat("/sys/class/net/ib0/ifindex"));
            // what rdma-core's pyverbs tests look for to find a device's interface (tests/base.py)
            assertEquals("ib1\n", ib.exec("ls", "/sys/class/infiniband/ibemu1/device/net").assertOk().stdout());
            assertEquals("2", ib.cat("/sys/class/infiniband/ibemu0/device/net/ib0/ifindex"));
            String rdma = ib.exec("rdma", "link").assertOk().stdout();
            assertTrue(rdma.matches("(?s)link ibemu0/1 .* netdev ib0 *\nlink ibemu1/1 .* netdev ib1 *\n"), rdma);
            String table = Ibemu.ibemu("ctl", "--name", ib.name(), "ipoib").assertOk().stdout();
            assertTrue(table.contains("ib0 port ibemu0/1 address 80:00:") && table.contains("carrier off"), table);
        }
    }

    /**
     * /sys/class/net/ibN as the kernel's IPoIB lays it out: the TAP's own files passed through
     * (mtu written through sysfs reaches the netdev, a show's errno arrives unchanged), IPoIB's
     * added or overridden, create_child/delete_child make and remove ib0.8001 (and ib0.0001: the
     * P_Key kept as written) with ipoib_vlan.c's errnos, mode switches between datagram and connected with their MTUs.
     */
    @Test
    void theNetdevDirectoryIsIpoibsAndCreateChildMakesAChild() {
        try (Ibemu ib = Ibemu.start("--topology", TOPOLOGY.toString(), "--local", "a", "--local", "b", "--sm",
                "preset", "--ipoib")) {
            String address = Ibemu.ibemu("ctl", "--name", ib.name(), "ipoib").assertOk().stdout()
                    .replaceAll("(?s).*ib0 port ibemu0/1 address (\\S+) .*", "$1");
            String script = """
                    n=/sys/class/net
                    for f in type addr_len address broadcast dev_id dev_port pkey mode umcast mtu ifindex; do
                        echo "$f=$(cat $n/ib0/$f)"; done
                    echo "device=$(readlink -f $n/ib0/device)"
                    echo "hca=$(readlink -f /sys/class/infiniband/ibemu0/device)"
                    echo "ib1 dev_port=$(cat $n/ib1/dev_port) ib1 type=$(cat $n/ib1/type)"
                    ls -l $n/ib0/ | awk '$NF ~ /_child$/ {print "mode " $1 " " $NF}'
                    test -e $n/ib0/statistics/rx_packets && echo statistics
                    { echo junk > $n/ib0/mode; } 2>&1 | sed 's/.*: /mode junk: /'
                    echo connected > $n/ib0/mode && echo "connected: $(cat $n/ib0/mode) mtu $(cat $n/ib0/mtu)"
                    echo datagram > $n/ib0/mode && echo "datagram: $(cat $n/ib0/mode) mtu $(cat $n/ib0/mtu)"
                    echo connected > $n/ib0/mode && echo 1400 > $n/ib0/mtu && echo datagram > $n/ib0/mode
                    echo "datagram from 1400: mtu $(cat $n/ib0/mtu)"
                    echo 1 > $n/ib0/umcast && echo "umcast after=$(cat $n/ib0/umcast)"
                    echo 1500 > $n/ib0/mtu && ip -o link show ib0 | grep -o 'mtu [0-9]*' | sed 's/^/ip /'
                    echo 0x8001 > $n/ib0/create_child && echo "create: ok"
                    ip -o link show ib0.8001 | grep -o 'ib0.8001: <[^>]*> mtu [0-9]*'
                    for f in pkey parent broadcast type; do echo "child $f=$(cat $n/ib0.8001/$f)"; done
                    test -e $n/ib0.8001/create_child || echo "child has no create_child"
                    test -e $n/ib0.8001/device || echo "child has no device, dev_port=$(cat $n/ib0.8001/dev_port)"
                    cat $n/ib0.8001/carrier 2>&1 | sed 's/.*: /down child carrier: /'
                    for v in 0x8001 0x8000 0 junk 0x10000; do
                        { echo $v > $n/ib0/create_child; } 2>&1 | sed "s/.*: /create $v: /"; done
                    { echo 0x8002 > $n/ib0/delete_child; } 2>&1 | sed 's/.*: /delete 0x8002: /'
                    echo 0x8001 > $n/ib0/delete_child && echo "delete: ok"
                    ip -o link show ib0.8001 >/dev/null 2>&1 || echo "ib0.8001 gone"
                    test -e $n/ib0.8001 || echo "its directory gone"
                    echo 1 > $n/ib0/create_child && echo "limited: $(cat $n/ib0.0001/pkey)"
                    echo 1 > $n/ib0/delete_child && echo "limited: deleted"
                    { echo 0 > $n/ib0/delete_child; } 2>&1 | sed 's/.*: /delete 0: /'
                    """;
            String out = ib.exec(Duration.ofSeconds(120), "bash", "-c", script).stdout();
            for (String line : List.of("type=32", "addr_len=20", "address=" + address,
                    "broadcast=00:ff:ff:ff:ff:12:40:1b:ff:ff:00:00:00:00:00:00:ff:ff:ff:ff", "dev_id=0x0",
                    "dev_port=0", "pkey=0xffff", "mode=datagram", "umcast=0", "mtu=2044", "ifindex=2",
                    "ib1 dev_port=0 ib1 type=32", "mode --w------- create_child", "mode --w------- delete_child",
                    "statistics", "down child carrier: Invalid argument", "mode junk: Invalid argument",
                    "connected: connected mtu 65520", "datagram: datagram mtu 2044", "datagram from 1400: mtu 1400", "umcast after=1", "ip mtu 1500", "create: ok",
                    "ib0.8001: <BROADCAST,MULTICAST> mtu 2044", "child pkey=0x8001", "child parent=ib0",
                    "child broadcast=00:ff:ff:ff:ff:12:40:1b:80:01:00:00:00:00:00:00:ff:ff:ff:ff", "child type=32",
                    "child has no create_child", "child has no device, dev_port=0", "create 0x8001: Name not unique on network",
                    "create 0x8000: Invalid argument", "create 0: Invalid argument", "create junk: Invalid argument",
                    "create 0x10000: Invalid argument", "delete 0x8002: No such device", "delete: ok",
                    "ib0.8001 gone", "its directory gone", "limited: 0x0001", "limited: deleted",
                    "delete 0: No such device")) {
                assertTrue(out.contains(line + "\n"), line + "\n" + out);
            }
            String hca = out.replaceAll("(?s).*\nhca=(\\S+)\n.*", "$1");
            assertTrue(hca.startsWith("/sys/devices/pci0000:00/") && out.contains("device=" + hca + "\n"),
                    "device is the HCA's PCI function\n" + out);
        }
    }

    /**
     * ipoib_add_one/remove_one: an HCA plugged in with `ctl hca add` gets the next ibN (IPoIB's
     * sysfs directory, the PCI function's net/ link, --ipoib-net's next free address), joins and
     * carries pings across the fabric from a namespace of its own; `ctl hca remove` takes the
     * interface away with its P_Key child.
     */
    @Test
    void aHotAddedHcaGetsItsInterfaceAndARemovedOneLosesIt() {
        Path topology = Ibemu.root().resolve("integration-tests/src/test/resources/topology/three-hosts.net");
        try (Ibemu ib = Ibemu.start("--topology", topology.toString(), "--local", "a", "--local", "b", "--sm",
                "opensm", "--ipoib")) {
            String added = Ibemu.ibemu("ctl", "--name", ib.name(), "hca", "add", "c").assertOk().stdout();
            assertTrue(added.startsWith("ibemu2 "), added);
            assertEquals("ib2\n", ib.exec("ls", "/sys/class/infiniband/ibemu2/device/net").assertOk().stdout());
            assertEquals("32", ib.cat("/sys/class/net/ib2/type"));
            String addrs = ib.exec("ip", "-o", "-4", "addr", "show", "ib2").assertOk().stdout();
            assertTrue(addrs.contains("ib2    inet 169.254.77.3/24"), addrs);
            String script = overTheFabric("ib2", "169.254.77.3/24", "169.254.77.1")
                    + "echo 0x8001 > /sys/class/net/ib2/create_child\n";
            Result r = ib.exec(Duration.ofSeconds(300), "bash", "-c", script);
            assertTrue(r.stdout().contains("there=0 back=0"), r.toString());
            assertTrue(ib.exec("ip", "-o", "link").assertOk().stdout().contains("ib2.8001:"), "the child was made");
            Ibemu.ibemu("ctl", "--name", ib.name(), "hca", "remove", "ibemu2").assertOk();
            String links = ib.exec("ip", "-o", "link").assertOk().stdout();
            assertTrue(links.contains("ib0:") && links.contains("ib1:") && !links.contains("ib2"), links);
            assertEquals("ib0\nib1\nlo\n", ib.exec("ls", "/sys/class/net").assertOk().stdout());
            assertTrue(ib.exec("grep", "-c", "virtual/net/ib2", "/proc/self/mountinfo").stdout().startsWith("0"),
                    "no bind over the removed interface's directory is left");
        }
    }

    /**
     * Connected mode (ipoib_cm.c): with both interfaces switched through their mode files, pings
     * of 30000 and 60000 bytes (beyond datagram mode's 2044, unfragmented at MTU 65520) and a TCP
     * transfer of 4 MB (checked by SHA-256) cross the fabric over RC connections made with the
     * IB CM, which `ctl ipoib` lists on both sides;
     * back in datagram mode the connections we made are gone and large pings go fragmented over UD.
     */
    @Test
    void connectedModeCarriesLargeFramesOverCmConnections() throws java.io.IOException {
        try (Ibemu ib = Ibemu.start("--topology", TOPOLOGY.toString(), "--local", "a", "--local", "b", "--sm",
                "opensm", "--ipoib")) {
            String script = """
                    n=/sys/class/net
                    echo connected > $n/ib0/mode && echo connected > $n/ib1/mode
                    echo "modes $(cat $n/ib0/mode) $(cat $n/ib1/mode) mtu $(cat $n/ib0/mtu) $(cat $n/ib1/mtu)"
                    """ + PeerHost.enter("ib1", "169.254.77.2/24", "") + """
                    ping -n -c 3 -W 10 -M do -s 30000 169.254.77.2 | grep -o '3 received'
                    in_peer ping -n -c 3 -W 10 -M do -s 60000 169.254.77.1 | grep -o '3 received'
                    head -c 4000000 /dev/urandom > "$TMPDIR/sent"
                    in_peer python3 -c 'import socket,hashlib,sys
                    s=socket.create_server(("169.254.77.2",5001)); c,_=s.accept(); h=hashlib.sha256(); n=0
                    while b:=c.recv(1<<20): h.update(b); n+=len(b)
                    print(n, h.hexdigest())' > "$TMPDIR/received" & server=$!
                    until in_peer ss -ltn | grep -q 169.254.77.2:5001; do sleep 0.1; done
                    python3 -c 'import socket,sys; s=socket.create_connection(("169.254.77.2",5001)); s.sendall(open(sys.argv[1],"rb").read()); s.close()' "$TMPDIR/sent"
                    wait $server
                    [ "$(cat "$TMPDIR/received")" = "4000000 $(sha256sum < "$TMPDIR/sent" | cut -d' ' -f1)" ] && echo "tcp 4 MB intact"
                    "$LAUNCHER" ctl --name "$INSTANCE" ipoib | grep '^  cm' | sed -E 's/ [0-9a-f:]+ qp [0-9]+//; s/^  //'
                    echo datagram > $n/ib0/mode && echo "ib0 $(cat $n/ib0/mode) mtu $(cat $n/ib0/mtu)"
                    "$LAUNCHER" ctl --name "$INSTANCE" ipoib | grep -c '^  cm tx' | sed 's/^/cm tx after: /'
                    ping -n -c 3 -W 10 -s 30000 169.254.77.2 | grep -o '3 received'
                    """ + PeerHost.leave("ib1");
            Path tmp = Files.createTempDirectory(Ibemu.tmpDir(), "ipoib-cm");
            Result r = ib.exec(Duration.ofSeconds(300), "env", "LAUNCHER=" + Ibemu.script(), "INSTANCE=" + ib.name(),
                    "TMPDIR=" + tmp, "bash", "-c", script);
            Ibemu.host("rm", "-rf", "--", tmp.toString());
            assertEquals("modes connected connected mtu 65520 65520\n3 received\n3 received\ntcp 4 MB intact\n"
                    + "cm tx up\ncm rx\ncm tx up\ncm rx\nib0 datagram mtu 2044\ncm tx after: 1\n3 received\n",
                    r.stdout(), r.toString());
        }
    }

    /**
     * The whole of ipoib_check.py (ping, ARP, broadcast ping, 4 MiB of TCP, PMA counters, a cut
     * cable that stops the traffic and a restore that resumes it) with both interfaces in
     * connected mode: unicast IP rides the CM's RC connections, which a cut cable breaks and the
     * next frame after the restore makes again.
     */
    @Test
    void theWholeCheckInConnectedMode() {
        try (Ibemu ib = Ibemu.start("--topology", TOPOLOGY.toString(), "--local", "a", "--local", "b", "--sm",
                "opensm", "--ipoib")) {
            Path script = Ibemu.root().resolve("integration-tests/src/test/python/ipoib_check.py");
            Tap.assertPassed(ib.exec(Duration.ofSeconds(600), "/usr/bin/python3", script.toString(),
                    Ibemu.script().toString(), ib.name(), "a", "connected"));
        }
    }

    @Test
    void withoutIpoibTheInstanceSharesTheHostsNetwork() {
        try (Ibemu ib = Ibemu.start("--topology", TOPOLOGY.toString(), "--local", "a", "--sm", "none")) {
            assertEquals(Ibemu.host("ip", "-o", "link").assertOk().stdout().replaceAll("state \\w+", ""),
                    ib.exec("ip", "-o", "link").assertOk().stdout().replaceAll("state \\w+", ""));
            Result r = Ibemu.ibemu("ctl", "--name", ib.name(), "ipoib");
            assertFalse(r.ok());
            assertTrue(r.stderr().contains("without --ipoib"), r.toString());
        }
    }

    @Test
    void anAddressBothTheTopologyAndTheNetworkGiveIsRefusedNamingBothPorts() throws java.io.IOException {
        Path topology = Files.createTempFile(Ibemu.tmpDir(), "ipoib-dup", ".net");
        try {
            Files.writeString(topology, Files.readString(Ibemu.root().resolve(
                    "integration-tests/src/test/resources/topology/ipoib-addresses.net")).replace(
                    "ipoib=10.42.0.101/24", "ipoib=10.42.0.2/24"));
            Result r = Ibemu.ibemu("run", "--topology", topology.toString(), "--local", "a", "--local", "b", "--ipoib",
                    "--ipoib-net", "10.42.0.0/24", "--", "true");
            assertFalse(r.ok());
            assertTrue(r.stderr().contains("IPoIB address 10.42.0.2 is both \"a\"[1]'s and \"b\"[1]'s (from the "
                    + "topology's ipoib= or --ipoib-net 10.42.0.0/24): change the topology's ipoib= or --ipoib-net"),
                    r.toString());
        } finally {
            Files.deleteIfExists(topology);
        }
    }

    @Test
    void aBadNetworkIsRefusedWithWhatToChange() {
        Result r = Ibemu.ibemu("run", "--topology", TOPOLOGY.toString(), "--local", "a", "--ipoib", "--ipoib-net",
                "10.1.2.3/33", "--", "true");
        assertFalse(r.ok());
        assertTrue(r.stderr().contains("--ipoib-net 10.1.2.3/33: not an IPv4 network in CIDR notation"), r.toString());
    }

    /**
     * A bash script: {@code iface} with {@code address} as another host's (PeerHost), pinged three
     * times there and {@code back} from there, moved home; prints {@code there=N back=M}, ping's
     * exit codes.
     */
    private static String overTheFabric(String iface, String address, String back) {
        String there = address.substring(0, address.indexOf('/'));
        return PeerHost.enter(iface, address, "") + "ping -n -c 3 -W 10 " + there + "; there=$?\n"
                + "in_peer ping -n -c 3 -W 10 " + back + "; back=$?\n" + PeerHost.leave(iface)
                + "echo \"there=$there back=$back\"\n";
    }
}
