package io.ibemu.it;

import org.junit.jupiter.api.BeforeAll;

/**
 * Every case of {@link VerbsToolsTest} with the devices presenting the oldest profile, 4.19: an
 * ioctl path with no method a software HCA serves, so libibverbs's INVOKE_WRITE probe gets
 * EPROTONOSUPPORT and every command goes by write(), each ioctl verb dropped after one try.
 */
class VerbsToolsKernel419Test extends VerbsToolsTest {

    @BeforeAll
    static void up() {
        ib = start("4.19");
    }
}
