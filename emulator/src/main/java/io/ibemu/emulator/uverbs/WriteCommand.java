package io.ibemu.emulator.uverbs;

import io.ibemu.kernel.CStruct;
import io.ibemu.kernel.Errno;

/**
 * One write() command as the kernel's uapi declares it (DECLARE_UVERBS_WRITE and
 * DECLARE_UVERBS_WRITE_EX in uverbs_cmd.c): its number, its request and response structs, the
 * minimum sizes verify_hdr checks, and whether driver data (udata) may follow the core structs.
 *
 * @param requestSize  req_size: sizeof the request struct, or offsetofend(member) for extended ones
 * @param responseSize resp_size: likewise for the response; 0 for commands without one
 */
record WriteCommand(int number, String name, boolean extended, CStruct request, CStruct response,
                    int requestSize, int responseSize, boolean udata, Handler handler) {

    /** The command's body: reads its request from {@code c}, acts on the model, writes the response. */
    @FunctionalInterface
    interface Handler {
        void run(Command c) throws Errno;
    }

    /** UAPI_DEF_WRITE_IO / _UDATA_IO: a request that starts with the response address, and a response. */
    static WriteCommand io(int number, String name, CStruct request, CStruct response, boolean udata, Handler h) {
        return new WriteCommand(number, name, false, request, response, request.size(), response.size(), udata, h);
    }

    /** UAPI_DEF_WRITE_I / _UDATA_I: a request and no response. */
    static WriteCommand in(int number, String name, CStruct request, boolean udata, Handler h) {
        return new WriteCommand(number, name, false, request, null, request.size(), 0, udata, h);
    }

    /** UAPI_DEF_WRITE_IO_EX: sizes up to and including the named members (offsetofend). */
    static WriteCommand ex(int number, String name, CStruct request, String requestEnd, CStruct response,
                           String responseEnd, Handler h) {
        return new WriteCommand(number, name, true, request, response, request.endOf(requestEnd),
                response.endOf(responseEnd), true, h);
    }

    boolean hasResponse() {
        return response != null;
    }
}
