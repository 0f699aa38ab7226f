package io.ibemu.emulator.sysfs;

import io.ibemu.sysfstree.SysDir;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * The PCI function an HCA hangs from, as drivers/pci/pci-sysfs.c shows one: ids, class, the
 * PCIe link, the DMA masks, and the uevent variables pci_uevent adds (after dev_uevent's
 * DRIVER). Values are those of a PCIe Gen2 x8 adapter such as the QLE7340.
 */
final class PciFunctionFiles {

    /** PCI class 0x0c06: serial bus controller, InfiniBand. */
    static final int PCI_CLASS_INFINIBAND = 0x0c0600;
    /** PCI class 0x0604: PCI-to-PCI bridge (a PCIe root port). */
    static final int PCI_CLASS_ROOT_PORT = 0x060400;
    private static final Path CPUS_ONLINE = Path.of("/sys/devices/system/cpu/online");

    private PciFunctionFiles() {
    }

    static String modalias(int vendor, int device, int pciClass) {
        return String.format("pci:v%08Xd%08Xsv%08Xsd%08Xbc%02Xsc%02Xi%02X", vendor, device, vendor, device,
                pciClass >>> 16, (pciClass >>> 8) & 0xff, pciClass & 0xff);
    }

    /** dev_uevent's DRIVER when bound, then pci_uevent's variables. */
    static Map<String, String> ueventVariables(int vendor, int device, int pciClass, String slot, Optional<String> driver) {
        Map<String, String> vars = new LinkedHashMap<>();
        driver.ifPresent(d -> vars.put("DRIVER", d));
        vars.put("PCI_CLASS", String.format("%X", pciClass));
        vars.put("PCI_ID", String.format("%04X:%04X", vendor, device));
        vars.put("PCI_SUBSYS_ID", String.format("%04X:%04X", vendor, device));
        vars.put("PCI_SLOT_NAME", slot);
        vars.put("MODALIAS", modalias(vendor, device, pciClass));
        return vars;
    }

    static void add(SysDir pci, int vendor, int device, int revision, int pciClass) {
        pci.attribute("vendor", () -> String.format("0x%04x%n", vendor));
        pci.attribute("device", () -> String.format("0x%04x%n", device));
        pci.attribute("subsystem_vendor", () -> String.format("0x%04x%n", vendor));
        pci.attribute("subsystem_device", () -> String.format("0x%04x%n", device));
        pci.attribute("class", () -> String.format("0x%06x%n", pciClass));
        pci.attribute("revision", () -> String.format("0x%02x%n", revision & 0xff));
        pci.attribute("modalias", () -> modalias(vendor, device, pciClass) + "\n");
        pci.attribute("numa_node", () -> "-1\n");
        pci.attribute("enable", () -> "1\n");
        pci.attribute("irq", () -> "16\n");
        pci.attribute("msi_bus", () -> "1\n");
        pci.attribute("ari_enabled", () -> "0\n");
        pci.attribute("broken_parity_status", () -> "0\n");
        pci.attribute("d3cold_allowed", () -> "1\n");
        pci.attribute("driver_override", () -> "(null)\n");
        pci.attribute("power_state", () -> "D0\n");
        pci.attribute("dma_mask_bits", () -> "64\n");
        pci.attribute("consistent_dma_mask_bits", () -> "64\n");
        pci.attribute("current_link_speed", () -> "5.0 GT/s PCIe\n");
        pci.attribute("current_link_width", () -> "8\n");
        pci.attribute("max_link_speed", () -> "5.0 GT/s PCIe\n");
        pci.attribute("max_link_width", () -> "8\n");
        pci.attribute("local_cpulist", () -> onlineCpus() + "\n");
        pci.attribute("local_cpus", () -> cpuMask(onlineCpus()) + "\n");
        PowerFiles.active(pci);
    }

    /** The host's online CPUs, as a NUMA-less machine gives every device. */
    private static String onlineCpus() {
        try {
            return Files.readString(CPUS_ONLINE).trim();
        } catch (IOException e) {
            return "0-" + (Runtime.getRuntime().availableProcessors() - 1);
        }
    }

    /** "0-3,8" as the hex mask cpumap_print_to_pagebuf writes (32-bit words, comma-separated). */
    static String cpuMask(String list) {
        java.util.BitSet cpus = new java.util.BitSet();
        for (String range : list.split(",")) {
            if (range.isBlank()) {
                continue;
            }
            String[] ends = range.split("-");
            int from = Integer.parseInt(ends[0].trim());
            int to = ends.length > 1 ? Integer.parseInt(ends[1].trim()) : from;
            cpus.set(from, to + 1);
        }
        int words = Math.max(1, (cpus.length() + 31) / 32);
        StringBuilder b = new StringBuilder();
        for (int w = words - 1; w >= 0; w--) {
            long word = 0;
            for (int bit = 0; bit < 32; bit++) {
                if (cpus.get(w * 32 + bit)) {
                    word |= 1L << bit;
                }
            }
            b.append(w == words - 1 ? Long.toHexString(word) : String.format(",%08x", word));
        }
        return b.toString();
    }
}
