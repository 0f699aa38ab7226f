package io.ibemu.it;

import org.junit.jupiter.api.BeforeAll;

/** Every case of {@link VerbsToolsTest} with the devices presenting a kernel without the ioctl path (RDMA_VERBS_IOCTL is ENOTTY): libibverbs uses write() for the whole context, as ibemu served it before the ioctl path. */
class VerbsToolsWriteOnlyTest extends VerbsToolsTest {

    @BeforeAll
    static void up() {
        ib = start("write-only");
    }
}
