package io.ibemu.it;

import org.junit.jupiter.api.BeforeAll;

/**
 * Every case of {@link VerbsToolsTest} with the devices bound to rdma-core's rxe provider
 * ({@code --provider rxe}): every queue mapped, receives posted and completions polled with no
 * system call, each send one doorbell write(), UD sends naming their AH by number.
 */
class VerbsToolsRxeTest extends VerbsToolsTest {

    @BeforeAll
    static void up() {
        ib = start(null, "rxe");
    }
}
