package io.ibemu.udev;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.assertFalse;

import io.ibemu.kernel.Errno;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class SyntheticUeventTest {

    private static final String UUID = "0e2a9b0f-1c2d-4e5f-8a9b-0c1d2e3f4a5b";

    @Test
    void plainActionGetsSynthUuidZero() throws Errno {
        SyntheticUevent s = SyntheticUevent.parse("change\n");
        assertEquals(UeventAction.CHANGE, s.action());
        assertEquals(Map.of("SYNTH_UUID", "0"), s.variables());
        assertEquals(UeventAction.ADD, SyntheticUevent.parse("add").action());
        assertEquals(UeventAction.REMOVE, SyntheticUevent.parse("remove\0").action());
    }

    @Test
    void uuidAndArguments() throws Errno {
        SyntheticUevent s = SyntheticUevent.parse("add " + UUID + " A=1 Foo=bar\n");
        assertEquals(List.of("SYNTH_UUID", "SYNTH_ARG_A", "SYNTH_ARG_Foo"), List.copyOf(s.variables().keySet()));
        assertEquals(UUID, s.variables().get("SYNTH_UUID"));
        assertEquals("bar", s.variables().get("SYNTH_ARG_Foo"));
    }

    @Test
    void whatTheKernelRefusesIsEinval() {
        for (String bad : new String[] {"", "\n", "Add", "added", "add ", "add\n\n", "add not-a-uuid",
                "add " + UUID + "x", "add " + UUID + " ", "add " + UUID + " A", "add " + UUID + " A=",
                "add " + UUID + " =1", "add " + UUID + " A-B=1", "add " + UUID + " A=1  B=2", " add"}) {
            Errno e = assertThrows(Errno.class, () -> SyntheticUevent.parse(bad), bad);
            assertEquals(Errno.EINVAL, e.code(), bad);
        }
    }

    @Test
    void eventsNumberedInOrderWithTheKernelsLayout() {
        Uevents events = new Uevents();
        Map<String, String> vars = new LinkedHashMap<>();
        vars.put("MAJOR", "231");
        vars.put("MINOR", "0");
        vars.put("DEVNAME", "infiniband/umad0");
        Kobject umad = new Kobject("/devices/pci0000:00/0000:00:10.0/infiniband_mad/umad0", "infiniband_mad", () -> vars);
        List<Uevent> seen = new java.util.ArrayList<>();
        events.listen(seen::add);
        Uevent first = events.raise(umad, UeventAction.ADD);
        Uevent second = events.raise(umad, UeventAction.CHANGE, Map.of("SYNTH_UUID", "0"));
        assertEquals(List.of(first, second), seen);
        assertEquals(List.of(first, second), events.recent());
        assertEquals(List.of("ACTION=add", "DEVPATH=/devices/pci0000:00/0000:00:10.0/infiniband_mad/umad0",
                "SUBSYSTEM=infiniband_mad", "MAJOR=231", "MINOR=0", "DEVNAME=infiniband/umad0", "SEQNUM=1"),
                first.environment());
        assertEquals("SYNTH_UUID=0", second.environment().get(3));
        assertEquals("SEQNUM=2", second.environment().get(7));
        assertFalse(first.synthetic());
        assertTrue(second.synthetic());
    }

    @Test
    void keepsOnlyTheMostRecent() {
        Uevents events = new Uevents(3);
        Kobject d = new Kobject("/devices/x", "s", Map::of);
        for (int i = 0; i < 8; i++) {
            events.raise(d, UeventAction.CHANGE);
        }
        List<Uevent> kept = events.recent();
        assertEquals(3, kept.size());
        assertEquals(6, kept.get(0).seqnum());
    }

    @Test
    void devpathMustBeUnderDevices() {
        assertThrows(IllegalArgumentException.class, () -> new Kobject("/class/x", "s", Map::of));
    }
}
