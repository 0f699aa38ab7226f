package io.ibemu.emulator.control;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ibemu.emulator.fabric.Fabric;
import io.ibemu.emulator.fabric.PortState;
import io.ibemu.emulator.topology.DefaultFabric;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.Channels;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The protocol over a real Unix-domain socket. */
class ControlServerTest {
    @TempDir
    Path dir;

    @Test
    void answersOkOrErrorAndKeepsServing() throws IOException {
        Fabric fabric = Fabric.of(DefaultFabric.topology());
        try (ControlServer server = ControlServer.start(new Console(fabric, Set.of()), dir)) {
            Path socket = dir.resolve("control.sock");
            assertEquals(socket, server.socket());
            assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(socket)));
            assertFalse(Files.exists(dir.resolve("control.sock.new")));

            ControlClient.Reply bad = ControlClient.send(dir, List.of("link", "cut", "nobody", "1"));
            assertFalse(bad.ok());
            assertTrue(bad.error().startsWith("no node 'nobody'"), bad.error());

            ControlClient.Reply good = ControlClient.send(dir, List.of("link", "cut", "local", "1"));
            assertTrue(good.ok(), good.error());
            assertEquals(1, good.lines().size());
            assertEquals(PortState.DOWN, fabric.node("local").orElseThrow().port(1).state());

            // a script: several requests on one connection, answered in order
            try (SocketChannel c = SocketChannel.open(StandardProtocolFamily.UNIX)) {
                c.connect(UnixDomainSocketAddress.of(socket));
                Channels.newOutputStream(c).write("# comment\nlink restore local 1\nbogus\n"
                        .getBytes(StandardCharsets.UTF_8));
                BufferedReader in = new BufferedReader(new InputStreamReader(Channels.newInputStream(c),
                        StandardCharsets.UTF_8));
                assertEquals("ok", in.readLine());
                assertTrue(in.readLine().contains("restored"));
                assertEquals("ok", in.readLine());
                assertTrue(in.readLine().startsWith("error: unknown command 'bogus'"));
            }
            assertEquals(PortState.INIT, fabric.node("local").orElseThrow().port(1).state());
        }
        assertFalse(Files.exists(dir.resolve("control.sock")), "closing removes the socket");
        IOException gone = assertThrows(IOException.class, () -> ControlClient.send(dir, List.of("dump")));
        assertTrue(gone.getMessage().contains("is the daemon running"), gone.getMessage());
    }

    /** 3,000 idle connections once made 3,004 threads; now the pool is bounded and the rest refused. */
    @Test
    void idleConnectionsAreBoundedRefusedAndTimedOut() throws Exception {
        Fabric fabric = Fabric.of(DefaultFabric.topology());
        int max = 4;
        try (ControlServer server = ControlServer.start(new Console(fabric, Set.of()), dir, max, 1500)) {
            Path socket = dir.resolve("control.sock");
            List<SocketChannel> idle = new java.util.ArrayList<>();
            try {
                for (int i = 0; i < max; i++) {
                    idle.add(connect(socket));
                }
                Thread.sleep(100);
                for (int i = 0; i < 5; i++) {
                    try (SocketChannel extra = connect(socket)) {
                        String line = reader(extra).readLine();
                        assertTrue(line != null && line.startsWith("error: busy"), line);
                    }
                }
                assertTrue(connectionThreads() <= max, "threads: " + connectionThreads());
                // the idle ones are closed by the server: their reads see the end
                for (SocketChannel c : idle) {
                    long start = System.nanoTime();
                    assertEquals(null, reader(c).readLine());
                    assertTrue(System.nanoTime() - start < 5_000_000_000L);
                }
            } finally {
                for (SocketChannel c : idle) {
                    c.close();
                }
            }
            ControlClient.Reply after = ControlClient.send(dir, List.of("link", "cut", "local", "1"));
            assertTrue(after.ok(), after.error());
        }
    }

    private static SocketChannel connect(Path socket) throws IOException {
        SocketChannel c = SocketChannel.open(StandardProtocolFamily.UNIX);
        c.connect(UnixDomainSocketAddress.of(socket));
        return c;
    }

    private static BufferedReader reader(SocketChannel c) {
        return new BufferedReader(new InputStreamReader(Channels.newInputStream(c), StandardCharsets.UTF_8));
    }

    private static long connectionThreads() {
        return Thread.getAllStackTraces().keySet().stream()
                .filter(t -> t.isAlive() && t.getName().equals("control-connection")).count();
    }

    @Test
    void aStateDirectoryTooDeepForASocketPathIsNamed() throws IOException {
        Path deep = Files.createDirectories(dir.resolve("d".repeat(100)));
        Fabric fabric = Fabric.of(DefaultFabric.topology());
        IOException e = assertThrows(IOException.class, () -> ControlServer.start(new Console(fabric, Set.of()), deep));
        assertTrue(e.getMessage().contains("use a shorter IBEMU_STATE_DIR"), e.getMessage());
    }
}
