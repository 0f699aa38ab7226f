package io.ibemu.devfs.fuse;

import io.ibemu.kernel.CStruct;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The protocol's structures against linux/fuse.h: every {@link CStruct} compiled into a C program
 * that prints the real sizes and offsets, and each codec checked against its layout (a value
 * put at a layout's offset is decoded into the right field; an encoded field lands there).
 */
class FuseProtocolTest {

    @TempDir
    Path temp;

    private static ByteBuffer buffer() {
        return ByteBuffer.allocate(512).order(ByteOrder.nativeOrder());
    }

    /** Every CStruct constant of FuseIn's records and of FuseOut. */
    static List<CStruct> layouts() throws IllegalAccessException {
        List<CStruct> all = new ArrayList<>();
        List<Class<?>> classes = new ArrayList<>(List.of(FuseIn.class.getDeclaredClasses()));
        classes.add(FuseOut.class);
        for (Class<?> c : classes) {
            for (Field f : c.getDeclaredFields()) {
                if (f.getType() == CStruct.class && Modifier.isStatic(f.getModifiers())) {
                    all.add((CStruct) f.get(null));
                }
            }
        }
        return all;
    }

    @Test
    void layoutsMatchLinuxFuseH() throws Exception {
        List<CStruct> layouts = layouts();
        assertTrue(layouts.size() >= 25, "found " + layouts.size() + " layouts");
        StringBuilder c = new StringBuilder("#include <linux/fuse.h>\n#include <stddef.h>\n#include <stdio.h>\nint main(void) {\n");
        for (CStruct l : layouts) {
            c.append("printf(\"").append(l.name()).append(" %zu\\n\", sizeof(struct ").append(l.name()).append("));\n");
            for (String field : l.fields().keySet()) {
                c.append("printf(\"").append(l.name()).append('.').append(field).append(" %zu\\n\", offsetof(struct ")
                        .append(l.name()).append(", ").append(field).append("));\n");
            }
        }
        c.append("return 0;\n}\n");
        Path source = temp.resolve("layouts.c");
        Files.writeString(source, c);
        Path binary = temp.resolve("layouts");
        run(List.of("gcc", "-Wall", "-o", binary.toString(), source.toString()));
        Map<String, Integer> real = new HashMap<>();
        for (String line : run(List.of(binary.toString())).split("\n")) {
            String[] kv = line.split(" ");
            real.put(kv[0], Integer.parseInt(kv[1]));
        }
        for (CStruct l : layouts) {
            assertEquals(real.get(l.name()), l.size(), "sizeof(struct " + l.name() + ")");
            l.fields().forEach((field, member) ->
                    assertEquals(real.get(l.name() + "." + field), member.offset(), l.name() + "." + field));
        }
    }

    private static String run(List<String> command) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(60, TimeUnit.SECONDS));
        assertEquals(0, p.exitValue(), command + ": " + out);
        return out;
    }

    private static int at(CStruct l, String field) {
        return l.field(field).offset();
    }

    @Test
    void headerDecodesEachField() {
        ByteBuffer b = buffer();
        CStruct l = FuseIn.Header.LAYOUT;
        b.putInt(at(l, "len"), 80).putInt(at(l, "opcode"), Opcode.READ).putLong(at(l, "unique"), 0x1122334455667788L)
                .putLong(at(l, "nodeid"), 7).putInt(at(l, "uid"), 1000).putInt(at(l, "gid"), 100).putInt(at(l, "pid"), 4242);
        assertEquals(new FuseIn.Header(80, Opcode.READ, 0x1122334455667788L, 7, 1000, 100, 4242), FuseIn.Header.decode(b, 0));
    }

    @Test
    void requestBodiesDecodeAtTheirOffsets() {
        int at = 40;
        ByteBuffer b = buffer();
        CStruct r = FuseIn.Read.LAYOUT;
        b.putLong(at + at(r, "fh"), 3).putLong(at + at(r, "offset"), 1 << 20).putInt(at + at(r, "size"), 4096)
                .putInt(at + at(r, "read_flags"), -1).putLong(at + at(r, "lock_owner"), -1).putInt(at + at(r, "flags"), 04002);
        assertEquals(new FuseIn.Read(3, 1 << 20, 4096, 04002), FuseIn.Read.decode(b, at));

        b = buffer();
        CStruct io = FuseIn.Ioctl.LAYOUT;
        b.putLong(at + at(io, "fh"), 9).putInt(at + at(io, "flags"), 2).putInt(at + at(io, "cmd"), 0xc0041b01)
                .putLong(at + at(io, "arg"), 0x7fff0000L).putInt(at + at(io, "in_size"), 4).putInt(at + at(io, "out_size"), 4);
        assertEquals(new FuseIn.Ioctl(9, 2, 0xc0041b01, 0x7fff0000L, 4, 4), FuseIn.Ioctl.decode(b, at));
        assertEquals(FuseIn.Ioctl.DATA, FuseIn.Ioctl.LAYOUT.size());

        b = buffer();
        CStruct p = FuseIn.Poll.LAYOUT;
        b.putLong(at + at(p, "fh"), 5).putLong(at + at(p, "kh"), 0xabcdL).putInt(at + at(p, "flags"), 1).putInt(at + at(p, "events"), 0x19);
        FuseIn.Poll poll = FuseIn.Poll.decode(b, at);
        assertEquals(new FuseIn.Poll(5, 0xabcd, 1, 0x19), poll);
        assertTrue(poll.scheduleNotify());

        b = buffer();
        CStruct s = FuseIn.Setattr.LAYOUT;
        b.putInt(at + at(s, "valid"), 8).putLong(at + at(s, "fh"), 2).putLong(at + at(s, "size"), 0)
                .putInt(at + at(s, "mode"), 0100644).putInt(at + at(s, "uid"), 1).putInt(at + at(s, "gid"), 2);
        assertEquals(new FuseIn.Setattr(8, 2, 0, 0100644, 1, 2), FuseIn.Setattr.decode(b, at));

        b = buffer();
        b.putInt(at + at(FuseIn.BatchForget.LAYOUT, "count"), 2);
        int one = at + FuseIn.BatchForget.LAYOUT.size() + FuseIn.BatchForget.ONE.size();
        b.putLong(one + at(FuseIn.BatchForget.ONE, "nodeid"), 17).putLong(one + at(FuseIn.BatchForget.ONE, "nlookup"), 3);
        assertEquals(2, FuseIn.BatchForget.decode(b, at).count());
        assertEquals(17, FuseIn.BatchForget.nodeid(b, at, 1));
        assertEquals(3, FuseIn.BatchForget.nlookup(b, at, 1));

        b = buffer();
        b.put(at, "umad0\0junk".getBytes(StandardCharsets.US_ASCII));
        assertEquals("umad0", FuseIn.name(b, at, at + 10));
        assertEquals("uma", FuseIn.name(b, at, at + 3), "a name never runs past the request");
    }

    @Test
    void initDecodesFlags2OnlyWhenTheKernelSendsIt() {
        ByteBuffer b = buffer();
        CStruct l = FuseIn.Init.LAYOUT;
        b.putInt(at(l, "major"), 7).putInt(at(l, "minor"), 44).putInt(at(l, "max_readahead"), 131072)
                .putInt(at(l, "flags"), 0x40000001).putInt(at(l, "flags2"), 3);
        assertEquals(new FuseIn.Init(7, 44, 131072, 0x40000001, 3), FuseIn.Init.decode(b, 0, 64));
        assertEquals(0, FuseIn.Init.decode(b, 0, 16).flags2());
    }

    @Test
    void repliesLandAtTheirOffsets() {
        ByteBuffer b = buffer();
        assertEquals(16, FuseOut.header(b, 0, 120, -4, 99));
        assertEquals(120, b.getInt(at(FuseOut.HEADER, "len")));
        assertEquals(-4, b.getInt(at(FuseOut.HEADER, "error")));
        assertEquals(99, b.getLong(at(FuseOut.HEADER, "unique")));

        b = buffer();
        assertEquals(64, FuseOut.init(b, 0, 7, 38, 65536, 0x21, 131072, 32));
        CStruct i = FuseOut.INIT;
        assertEquals(38, b.getInt(at(i, "minor")));
        assertEquals(65536, b.getInt(at(i, "max_readahead")));
        assertEquals(0x21, b.getInt(at(i, "flags")));
        assertEquals(131072, b.getInt(at(i, "max_write")));
        assertEquals(32, b.getShort(at(i, "max_pages")));
        assertEquals(0, b.getInt(at(i, "flags2")));

        b = buffer();
        FuseOut.Attr attr = new FuseOut.Attr(5, 0, 1700000000L, 0100600, 1, 0, 27);
        assertEquals(128, FuseOut.entry(b, 0, 5, 1_500_000_000L, 0, attr));
        CStruct e = FuseOut.ENTRY;
        assertEquals(5, b.getLong(at(e, "nodeid")));
        assertEquals(1, b.getLong(at(e, "entry_valid")));
        assertEquals(500_000_000, b.getInt(at(e, "entry_valid_nsec")));
        int a = at(e, "attr.ino"); // where the nested struct fuse_attr starts
        assertEquals(5, b.getLong(a + at(FuseOut.ATTR, "ino")));
        assertEquals(0100600, b.getInt(a + at(FuseOut.ATTR, "mode")));
        assertEquals(27, b.getInt(a + at(FuseOut.ATTR, "gid")));
        assertEquals(1700000000L, b.getLong(a + at(FuseOut.ATTR, "mtime")));

        b = buffer();
        assertEquals(16, FuseOut.open(b, 0, 12, FuseOut.FOPEN_DIRECT_IO | FuseOut.FOPEN_STREAM));
        assertEquals(12, b.getLong(at(FuseOut.OPEN, "fh")));
        assertEquals(0x11, b.getInt(at(FuseOut.OPEN, "open_flags")));

        b = buffer();
        assertEquals(16, FuseOut.ioctl(b, 0, -22, 0, 0, 0));
        assertEquals(-22, b.getInt(at(FuseOut.IOCTL, "result")));
    }

    @Test
    void direntsArePaddedToEightBytes() {
        ByteBuffer b = buffer();
        b.put(0, new byte[64]);
        byte[] name = "issm10".getBytes(StandardCharsets.US_ASCII);
        int size = FuseOut.dirent(b, 0, 9, 4, 8, name);
        assertEquals(32, size); // 24 + 6, rounded up (FUSE_DIRENT_ALIGN)
        CStruct d = FuseOut.DIRENT;
        assertEquals(9, b.getLong(at(d, "ino")));
        assertEquals(4, b.getLong(at(d, "off")));
        assertEquals(6, b.getInt(at(d, "namelen")));
        assertEquals(8, b.getInt(at(d, "type")));
        assertEquals("issm10", new String(name));
        assertEquals(0, b.get(30));
        assertEquals(24, FuseOut.direntSize(new byte[0]));
        assertEquals(32, FuseOut.direntSize(new byte[8]));
    }

    @Test
    void cuseInitCarriesItsDeviceInfoStrings() {
        ByteBuffer b = buffer();
        int n = FuseOut.cuseInit(b, 0, 7, 38, 0, 131072, 131072, 231, 64, "DEVNAME=infiniband/umad0");
        assertEquals(FuseOut.CUSE_INIT.size() + "DEVNAME=infiniband/umad0".length() + 1, n);
        assertEquals(231, b.getInt(at(FuseOut.CUSE_INIT, "dev_major")));
        assertEquals(64, b.getInt(at(FuseOut.CUSE_INIT, "dev_minor")));
        assertEquals('D', b.get(FuseOut.CUSE_INIT.size()));
        assertEquals(0, b.get(n - 1));
    }
}
