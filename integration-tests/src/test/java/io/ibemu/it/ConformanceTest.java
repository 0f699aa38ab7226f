package io.ibemu.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ibemu.it.Conformance.Outcome;
import io.ibemu.it.Conformance.Verdict;
import java.util.List;
import org.junit.jupiter.api.Test;

/** How two TAP runs of a probe are compared (no VM, no daemon). */
class ConformanceTest {
    private static final String KERNEL = String.join("\n",
            "# device rxe0 has:",
            "ok 1 - same",
            "ok 2 - needs ib # SKIP needs ib",
            "not ok 3 - differs: got errno ENOENT(2), want EINVAL(22)",
            "ok 4 - repeated",
            "ok 5 - repeated",
            "not ok 6 - both fail: got 1, want 2",
            "ok 7 - ioctl RDMA_VERBS_IOCTL: ENOTTY (libibverbs falls back to write())",
            "1..7");
    private static final String IBEMU = String.join("\n",
            "ok 1 - same",
            "ok 2 - needs ib",
            "ok 3 - differs",
            "ok 4 - repeated",
            "not ok 5 - repeated: got 0, want 1",
            "not ok 6 - both fail: got 1, want 2",
            "not ok 7 - ioctl RDMA_VERBS_IOCTL: ENOTTY (libibverbs falls back to write()): got errno EINVAL(22)",
            "ok 8 - only on ibemu",
            "1..8");

    @Test
    void parsesOutcomesAndNumbersRepeatedDescriptions() {
        var k = Conformance.parse(KERNEL);
        assertEquals(List.of("same", "needs ib", "differs", "repeated", "repeated #2", "both fail",
                "ioctl RDMA_VERBS_IOCTL: ENOTTY (libibverbs falls back to write())"), List.copyOf(k.keySet()));
        assertEquals(new Outcome(Outcome.Kind.SKIP, "needs ib"), k.get("needs ib"));
        assertEquals(new Outcome(Outcome.Kind.FAIL, "got errno ENOENT(2), want EINVAL(22)"), k.get("differs"));
        assertEquals(Outcome.Kind.PASS, k.get("repeated #2").kind());
    }

    @Test
    void aCheckThatRanOnBothMustPassOnBoth() {
        Conformance c = Conformance.of("uverbs_abi", KERNEL, IBEMU);
        assertEquals(Verdict.AGREE, c.verdict("same"));
        assertEquals(Verdict.NOT_COMPARED, c.verdict("needs ib"));
        assertEquals(Verdict.DISAGREE, c.verdict("differs"));
        assertEquals(Verdict.DISAGREE, c.verdict("repeated #2"));
        assertEquals(Verdict.DISAGREE, c.verdict("both fail"), "a rule the kernel does not follow is a disagreement");
        // no longer a declared deviation: ibemu serves the ioctl path (issue 21)
        assertEquals(Verdict.DISAGREE, c.verdict("ioctl RDMA_VERBS_IOCTL: ENOTTY (libibverbs falls back to write())"));
        assertEquals(Verdict.NOT_COMPARED, c.verdict("only on ibemu"));
        assertEquals(4, c.disagreements().size());
        assertTrue(c.markdown().contains("| differs | **not ok**: got errno ENOENT(2), want EINVAL(22) | ok | disagree |"),
                c.markdown());
    }

    @Test
    void answersMustBeTheSame() {
        String kernel = String.join("\n",
                "ok 1 - uverbs 1.0: command 0x3 # answer EOPNOTSUPP",
                "ok 2 - uverbs 1.1: command 0x4 # answer ENOENT",
                "not ok 3 - umad 1.2: poll: the device no longer answers (a new umad file) # answer 4",
                "ok 4 - issm 1.3: read of 0 bytes # answer EINVAL",
                "ok 5 - uverbs 1.4: command 0x1c # SKIP needs qib",
                "1..5");
        String ibemu = String.join("\n",
                "ok 1 - uverbs 1.0: command 0x3 # answer EOPNOTSUPP",
                "ok 2 - uverbs 1.1: command 0x4 # answer EINVAL",
                "ok 3 - umad 1.2: poll # answer 4",
                "ok 4 - issm 1.3: read of 0 bytes # answer 0",
                "ok 5 - uverbs 1.4: command 0x1c # answer 0",
                "1..5");
        Conformance c = Conformance.of("fuzz", kernel, ibemu);
        assertEquals(new Outcome(Outcome.Kind.PASS, "", "ENOENT"), c.kernel("uverbs 1.1: command 0x4"));
        assertEquals(new Outcome(Outcome.Kind.FAIL, "the device no longer answers (a new umad file)", "4"),
                c.kernel("umad 1.2: poll"));
        assertEquals(Verdict.AGREE, c.verdict("uverbs 1.0: command 0x3"));
        assertEquals(Verdict.DISAGREE, c.verdict("uverbs 1.1: command 0x4"), "the same pass, another errno");
        assertEquals(Verdict.DISAGREE, c.verdict("umad 1.2: poll"));
        assertEquals(Verdict.DEVIATION, c.verdict("issm 1.3: read of 0 bytes"), "FUSE answers 0-byte reads itself");
        assertEquals(Verdict.NOT_COMPARED, c.verdict("uverbs 1.4: command 0x1c"));
        assertTrue(c.markdown().contains("| uverbs 1.1: command 0x4 | ok (ENOENT) | ok (EINVAL) | disagree |"),
                c.markdown());
    }

    @Test
    void aSkippedProbeIsOneEntry() {
        var k = Conformance.parse("# device rxe0 has:\n1..0 # SKIP needs ib\n");
        assertEquals(new Outcome(Outcome.Kind.SKIP, "needs ib"), k.get("(whole probe)"));
        assertEquals(1, k.size());
    }
}
