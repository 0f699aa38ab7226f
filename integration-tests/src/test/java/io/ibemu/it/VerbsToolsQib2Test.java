package io.ibemu.it;

import org.junit.jupiter.api.BeforeAll;

/**
 * Every case of {@link VerbsToolsTest} with the devices at qib's driver ABI 2
 * ({@code --provider qib2}): ipathverbs maps the CQ, RQ and SRQ rings, so polls and receive
 * posts make no system call and only sends, arming and resizing go through the ABI.
 */
class VerbsToolsQib2Test extends VerbsToolsTest {

    @BeforeAll
    static void up() {
        ib = start(null, "qib2");
    }
}
