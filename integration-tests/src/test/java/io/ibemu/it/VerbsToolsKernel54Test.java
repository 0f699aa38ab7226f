package io.ibemu.it;

import org.junit.jupiter.api.BeforeAll;

/** Every case of {@link VerbsToolsTest} with the devices presenting the 5.4 profile: INVOKE_WRITE tunnels every command, but GET_CONTEXT goes as a write command (no ASYNC_EVENT object) and the GID table comes from sysfs. */
class VerbsToolsKernel54Test extends VerbsToolsTest {

    @BeforeAll
    static void up() {
        ib = start("5.4");
    }
}
