package io.ibemu.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The raw-ABI probes run twice: against Debian's own kernel (ib_core, ib_umad, ib_uverbs and
 * the soft-RoCE driver rxe) in the VM of scripts/kernel-vm, and against ibemu. Every check that
 * applies to both devices (see the NEED_* of probe.h) must pass on both; the table of all checks
 * goes to integration-tests/target/conformance.md (scripts/conformance copies it to
 * docs/conformance.md).
 *
 * <p>fuzz runs with no arguments: its comparable corpus, one seeded case per line, each with the
 * device's answer ("# answer EINVAL"), which must be the same on both.
 *
 * <p>ucma (the RDMA CM's /dev/infiniband/rdma_cm) runs in a VM of its own, with rdma_ucm loaded
 * (scripts/kernel-vm --rdma-cm: ib_cm's MAD agent for the CM class would change what the umad
 * probes see), and on an ibemu instance with IPoIB addresses (two HCAs, OpenSM, --ipoib): its
 * checks need the port's IPv4 address. Its RoCE/InfiniBand differences are the NEED_IB checks.
 * fuzz_ucma, fuzz.c's corpus of random ucma writes, runs beside it.
 *
 * <p>uverbs_rings runs on ibemu under {@code --provider rxe}: its rxe branch (queue layouts,
 * rounding, mmap rules, the doorbell's EINVAL before RTS) is compared with the VM's rxe; its
 * data-path checks need LIDs and run on ibemu only.
 *
 * <p>Not here: uverbs_data, whose every part needs the write() data path rxe does not offer and
 * a subnet manager for LIDs (RoCE has none); on rxe issm skips itself (QP0) and umad_rw runs
 * only its registration checks.
 */
class KernelConformanceTest {
    static final List<String> PROBES = List.of("umad_ioctl", "umad_rw", "umad_fd", "umad_kill", "issm", "umad_rmpp",
            "umad_libibumad", "uverbs_abi", "uverbs_ioctl", "fuzz", "uverbs_rings");
    /** Probes of the mapped queues, run on ibemu under the profile whose driver ABI the VM's rxe has. */
    static final List<String> RXE_PROFILE = List.of("uverbs_rings");

    /**
     * Probes that share one VM boot (with {@code vmOptions} for scripts/kernel-vm) and, on ibemu,
     * one instance per distinct {@code ibemuArgs} of a probe; each group runs once, when a test
     * first needs it.
     */
    record Group(String name, List<String> probes, List<String> vmOptions, Function<String, List<String>> ibemuArgs) {
    }

    static final Group UMAD_VERBS = new Group("kernel-vm-out", PROBES, List.of(),
            p -> RXE_PROFILE.contains(p) ? List.of("--provider", "rxe", "--sm", "preset") : List.of());
    static final List<String> RDMA_CM_FABRIC = List.of("--topology",
            Ibemu.root().resolve("integration-tests/src/test/resources/topology/two-switches.net").toString(),
            "--local", "a", "--local", "b", "--sm", "opensm", "--ipoib");
    static final Group RDMA_CM = new Group("kernel-vm-rdma-cm", List.of("ucma", "fuzz_ucma"), List.of("--rdma-cm"),
            p -> RDMA_CM_FABRIC);

    static final Map<String, Result> kernelRuns = new LinkedHashMap<>();
    static final Map<String, Result> ibemuRuns = new LinkedHashMap<>();
    static final Map<String, Conformance> compared = new LinkedHashMap<>();
    static final Map<Group, Result> vms = new HashMap<>();

    /** Runs the group's probes on the kernel in the VM, then on ibemu, once. */
    static synchronized Result run(Group g) throws IOException {
        Result done = vms.get(g);
        if (done != null) {
            return done;
        }
        List<String> argv = new ArrayList<>(List.of(Ibemu.root().resolve("scripts/kernel-vm").toString(),
                "--timeout", "900", "--step-timeout", "240", "--env", "PROBE_WATCHDOG=off"));
        argv.addAll(g.vmOptions());
        Path out = Ibemu.targetDir().resolve(g.name());
        argv.add("--out");
        argv.add(out.toString());
        for (String p : g.probes()) {
            argv.add(CPrograms.compileStatic(p).toString());
        }
        Result vm = Command.of(argv).timeout(Duration.ofMinutes(16)).run();
        for (String p : g.probes()) {
            Path o = out.resolve(p + ".out"), s = out.resolve(p + ".status");
            String status = Files.isRegularFile(s) ? Files.readString(s).trim() : "none";
            String stdout = Files.isRegularFile(o) ? Files.readString(o) : "";
            kernelRuns.put(p, new Result(List.of("kernel-vm", p), status.matches("\\d+") ? Integer.parseInt(status) : -1,
                    stdout, "", false, Duration.ZERO));
        }
        Map<List<String>, List<String>> byInstance = new LinkedHashMap<>();
        for (String p : g.probes()) {
            byInstance.computeIfAbsent(g.ibemuArgs().apply(p), k -> new ArrayList<>()).add(p);
        }
        for (Map.Entry<List<String>, List<String>> instance : byInstance.entrySet()) {
            try (Ibemu ib = Ibemu.start(instance.getKey().toArray(String[]::new))) {
                for (String p : instance.getValue()) {
                    ibemuRuns.put(p, ib.exec(Duration.ofSeconds(240), CPrograms.compile(p).toString()));
                }
            }
        }
        for (String p : g.probes()) {
            compared.put(p, Conformance.of(p, kernelRuns.get(p).stdout(), ibemuRuns.get(p).stdout()));
        }
        vms.put(g, vm);
        return vm;
    }

    @AfterAll
    static void writeTable() {
        if (compared.isEmpty()) {
            return;
        }
        StringBuilder b = new StringBuilder();
        b.append("# Conformance: the raw-ABI probes on Debian's kernel and on ibemu\n\n")
                .append("Generated by `scripts/conformance` (KernelConformanceTest); do not edit by hand.\n")
                .append("Kernel: Debian's linux-image-amd64 in QEMU (`scripts/kernel-vm`), device rxe0 (soft-RoCE")
                .append(" on a veth); ibemu: the default fabric (ibemu0, the qib profile; uverbs_rings under")
                .append(" `--provider rxe`; ucma and fuzz_ucma on two-switches.net with OpenSM and `--ipoib`).\n")
                .append("A check runs where the device has what it needs (probe.h: `ib` = an InfiniBand port,")
                .append(" `roce` = a RoCE port, `pci` = a PCI parent, `qib` = the ib_qib driver's answers,")
                .append(" `xrc` = XRC domains); a check that ran on both")
                .append(" must pass on both (KernelConformanceTest fails otherwise).\n\n");
        for (Conformance c : compared.values()) {
            b.append(c.markdown());
        }
        try {
            Files.writeString(Ibemu.targetDir().resolve("conformance.md"), b.toString());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static void assertTheVmRan(Group g) throws IOException {
        Result vm = run(g);
        assertTrue(vm.exitCode() == 0 || vm.exitCode() == 1, "scripts/kernel-vm failed: " + vm);
        for (String p : g.probes()) {
            Result k = kernelRuns.get(p);
            assertTrue(k.exitCode() == 0 || k.exitCode() == 1, p + " did not finish in the VM: " + k);
        }
    }

    /** Both runs finished (no bail-out, no crash) and every check that ran on both agrees. */
    static void assertAgree(Group g, String probe) throws IOException {
        run(g);
        Result k = kernelRuns.get(probe), e = ibemuRuns.get(probe);
        assertEquals(null, Tap.parse(k.stdout()).bailOut(), probe + " bailed out on the kernel: " + k.stdout());
        assertEquals(null, Tap.parse(e.stdout()).bailOut(), probe + " bailed out on ibemu: " + e);
        Conformance c = compared.get(probe);
        List<String> bad = c.disagreements();
        if (!bad.isEmpty()) {
            fail(probe + ": " + bad.size() + " checks disagree (kernel vs ibemu):\n  " + String.join("\n  ", bad));
        }
        assertTrue(c.count(Conformance.Verdict.AGREE) > 0 || c.kernel().containsKey("(whole probe)"),
                probe + ": nothing was compared");
    }

    @Test
    void theVmRanEveryProbe() throws IOException {
        assertTheVmRan(UMAD_VERBS);
    }

    static List<String> probes() {
        return PROBES;
    }

    @ParameterizedTest
    @MethodSource("probes")
    void kernelAndIbemuAgree(String probe) throws IOException {
        assertAgree(UMAD_VERBS, probe);
    }

    /**
     * The RDMA CM: the ucma probe on the kernel (rxe serves rdma_cm) and on ibemu. Without
     * /dev/infiniband/rdma_cm on ibemu the probe bails out, and the test fails.
     */
    @Nested
    class RdmaCm {
        @Test
        void theVmRanTheUcmaProbe() throws IOException {
            assertTheVmRan(RDMA_CM);
            assertTrue(Tap.parse(kernelRuns.get("ucma").stdout()).bailOut() == null,
                    "ucma bailed out on the kernel: " + kernelRuns.get("ucma").stdout());
        }

        @ParameterizedTest
        @ValueSource(strings = {"ucma", "fuzz_ucma"})
        void kernelAndIbemuAgree(String probe) throws IOException {
            assertAgree(RDMA_CM, probe);
        }
    }
}
