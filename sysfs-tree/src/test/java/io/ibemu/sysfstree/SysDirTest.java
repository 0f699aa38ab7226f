package io.ibemu.sysfstree;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The tree's own rules, without a mount. */
class SysDirTest {

    private final SysDir root = new SysfsTree().root();

    @Test
    void renameMovesTheSameNodeAndRefusesATakenName() {
        SysDir dev = root.dir("ibemu0");
        root.dir("ibemu1");
        assertTrue(root.rename("ibemu0", "mlx5_7"));
        assertSame(dev, root.subdir("mlx5_7").orElseThrow());
        assertEquals(Optional.empty(), root.subdir("ibemu0"));
        assertFalse(root.rename("mlx5_7", "ibemu1"));
        assertFalse(root.rename("missing", "x"));
        assertSame(dev, root.subdir("mlx5_7").orElseThrow());
    }

    @Test
    void dirIsGetOrCreate() {
        SysDir first = root.dir("class");
        assertSame(first, root.dir("class"));
        assertEquals(Optional.of(first), root.subdir("class"));
        assertEquals(Optional.empty(), root.subdir("missing"));
    }

    @Test
    void namesAreASortedSnapshot() {
        root.attribute("b", () -> "");
        root.dir("a");
        root.link("c", "a");
        Set<String> names = root.names();
        root.remove("b");
        assertEquals(Set.of("a", "b", "c"), names);
        assertEquals("[a, c]", root.names().toString());
    }

    @Test
    void leavesReplaceAndDirectoriesDoNot() {
        root.attribute("x", () -> "1");
        KernfsNode before = root.entry("x");
        root.link("x", "elsewhere");
        assertTrue(before.detached());
        assertThrows(IllegalStateException.class, () -> root.dir("x"));
    }

    @Test
    void removingADirectoryDetachesItsSubtree() {
        SysDir device = root.dir("device");
        device.attribute("value", () -> "1");
        KernfsNode value = device.entry("value");
        root.remove("device");
        assertTrue(device.detached());
        assertTrue(value.detached());
        assertEquals(Set.of(), root.names());
    }

    @Test
    void inodesAreDistinctAndTheRootIsOne() {
        root.dir("a").attribute("b", () -> "");
        assertEquals(1, root.inode());
        assertNotEquals(root.entry("a").inode(), root.subdir("a").orElseThrow().entry("b").inode());
    }

    @Test
    void badNamesAndModesAreRefused() {
        for (String name : new String[] {"", ".", "..", "a/b", "nul\0"}) {
            assertThrows(IllegalArgumentException.class, () -> root.dir(name), name);
        }
        assertThrows(IllegalArgumentException.class, () -> root.attribute("m", 010000, () -> "", null));
        assertThrows(IllegalArgumentException.class, () -> root.link("l", ""));
    }
}
