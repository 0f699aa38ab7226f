package io.ibemu.emulator.rdmacm;

import io.ibemu.kernel.CStruct;
import io.ibemu.kernel.Errno;

/**
 * One entry of ucma.c's {@code ucma_cmd_table}: the command number, its request struct, the
 * response size its handler requires of {@code hdr.out} first (ENOSPC below it; 0 for commands
 * that check none), the handler, and for extensible requests the least {@code in} (0: none).
 */
record UcmaCommand(int number, String name, CStruct request, int responseSize, Handler handler, int extensibleFrom) {

    UcmaCommand(int number, String name, CStruct request, int responseSize, Handler handler) {
        this(number, name, request, responseSize, handler, 0);
    }

    /**
     * An extensible request (CONNECT, ACCEPT grew the ECE tail): {@code in} below the end of
     * {@code member} is EINVAL, and only {@code in} bytes are read, the rest zero.
     */
    UcmaCommand extensibleTo(String member) {
        return new UcmaCommand(number, name, request, responseSize, handler, request.endOf(member));
    }

    @FunctionalInterface
    interface Handler {
        void run(UcmaRequest r) throws Errno;
    }

    static UcmaCommand in(int number, String name, CStruct request, Handler h) {
        return new UcmaCommand(number, name, request, 0, h);
    }

    static UcmaCommand io(int number, String name, CStruct request, CStruct response, Handler h) {
        return new UcmaCommand(number, name, request, response.size(), h);
    }
}
