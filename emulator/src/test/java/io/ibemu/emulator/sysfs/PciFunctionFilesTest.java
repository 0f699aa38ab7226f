package io.ibemu.emulator.sysfs;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class PciFunctionFilesTest {

    @Test
    void cpuMasksAsTheKernelPrintsThem() {
        assertEquals("3", PciFunctionFiles.cpuMask("0-1"));
        assertEquals("1", PciFunctionFiles.cpuMask("0"));
        assertEquals("f0f", PciFunctionFiles.cpuMask("0-3,8-11"));
        assertEquals("1,00000000", PciFunctionFiles.cpuMask("32"));
        assertEquals("ffffffff,ffffffff", PciFunctionFiles.cpuMask("0-63"));
    }

    @Test
    void ueventVariablesOfABoundQle7340() {
        Map<String, String> vars = PciFunctionFiles.ueventVariables(0x1077, 0x7322,
                PciFunctionFiles.PCI_CLASS_INFINIBAND, "0000:10:00.0", PciDriver.of(0x1077, 0x7322));
        assertEquals(List.of("DRIVER", "PCI_CLASS", "PCI_ID", "PCI_SUBSYS_ID", "PCI_SLOT_NAME", "MODALIAS"),
                List.copyOf(vars.keySet()));
        assertEquals("ib_qib", vars.get("DRIVER"));
        assertEquals("C0600", vars.get("PCI_CLASS"));
        assertEquals("1077:7322", vars.get("PCI_ID"));
        assertEquals("pci:v00001077d00007322sv00001077sd00007322bc0Csc06i00", vars.get("MODALIAS"));
    }

    @Test
    void unclaimedIdsLeaveTheFunctionUnbound() {
        assertEquals(Optional.empty(), PciDriver.of(0x1234, 0x5678));
        assertEquals(Optional.of("mlx5_core"), PciDriver.of(0x15b3, 0x1017));
        Map<String, String> vars = PciFunctionFiles.ueventVariables(0x1234, 0x5678,
                PciFunctionFiles.PCI_CLASS_INFINIBAND, "0000:10:00.0", Optional.empty());
        assertEquals("PCI_CLASS", vars.keySet().iterator().next());
    }
}
