package io.ibemu.it;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@link MappedQueuesTest}'s cases under {@code --provider rxe}: rdma-core's rxe provider over
 * rxe_queues (rdma_user_rxe.h), where the send queue is mapped too and a send is one doorbell
 * write(); the ring probe takes its rxe branch (mminfo, queue headers, WQEs, doorbell, overflow,
 * resize).
 */
class MappedQueuesRxeTest extends MappedQueuesTest {

    @BeforeAll
    static void up() {
        ib = start("rxe");
    }

    @Test
    void ringProbeTakesTheRxeBranch() {
        String bin = CPrograms.compile("uverbs_rings").toString();
        Result r = ib.exec(Duration.ofSeconds(180), bin);
        Tap.assertPassed(r);
        assertTrue(r.stdout().contains("the doorbell: POST_SEND with wr_count 0"), r.toString());
    }
}
