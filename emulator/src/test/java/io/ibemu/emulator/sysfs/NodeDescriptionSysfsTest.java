package io.ibemu.emulator.sysfs;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;

import io.ibemu.emulator.device.HcaIdentity;
import io.ibemu.emulator.device.LocalHca;
import io.ibemu.emulator.fabric.Fabric;
import io.ibemu.emulator.fabric.Node;
import io.ibemu.emulator.mad.NodeDescription;
import io.ibemu.emulator.topology.DefaultFabric;
import io.ibemu.emulator.topology.NodeType;
import io.ibemu.sysfstree.SysfsTree;
import io.ibemu.udev.Uevents;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** node_desc through a mounted tree: bytes in, the same bytes in sysfs and in the SMA's NodeDescription. */
class NodeDescriptionSysfsTest {
    @TempDir
    Path dir;

    @Test
    void nodeDescStoresBytesExactly() throws Exception {
        Fabric fabric = Fabric.of(DefaultFabric.topology());
        Node node = fabric.nodes().stream().filter(n -> n.type() == NodeType.CA).findFirst().orElseThrow();
        LocalHca hca = new LocalHca(0, node, HcaIdentity.defaults(0), "0000:04:00.0", 0);
        try (SysfsTree tree = new SysfsTree("node-desc-test")) {
            new InfinibandSysfs(fabric, tree.root(), new Uevents(), io.ibemu.emulator.uverbs.ProviderProfile.DEFAULT).build(List.of(hca));
            tree.mount(dir);
            Path nodeDesc = dir.resolve("class/infiniband/" + hca.name() + "/node_desc");
            byte[] desc = {'h', (byte) 0xff, 'x', (byte) 0xc3};
            Files.write(nodeDesc, concat(desc, new byte[] {'\n'}));
            assertArrayEquals(desc, node.descriptionBytes());
            assertArrayEquals(concat(desc, new byte[] {'\n'}), Files.readAllBytes(nodeDesc));
            byte[] smp = new byte[128];
            NodeDescription.encode(node.descriptionBytes(), smp, 64);
            assertArrayEquals(concat(desc, new byte[60]), Arrays.copyOfRange(smp, 64, 128));
            // 70 bytes: the first 64 kept, as node_desc_store's memcpy
            byte[] longer = new byte[70];
            Arrays.fill(longer, (byte) 0xfe);
            Files.write(nodeDesc, longer);
            assertArrayEquals(Arrays.copyOf(longer, 64), node.descriptionBytes());
        }
    }

    private static byte[] concat(byte[] a, byte[] b) {
        byte[] out = Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }
}
