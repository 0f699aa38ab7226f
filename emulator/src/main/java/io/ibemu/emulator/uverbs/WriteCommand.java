package io.ibemu.emulator.uverbs;

import io.ibemu.kernel.CStruct;
import io.ibemu.kernel.Errno;

/**
 * One write() command as the kernel's uapi declares it (DECLARE_UVERBS_WRITE and
 * DECLARE_UVERBS_WRITE_EX in uverbs_cmd.c): its number, its request and response structs, the
 * minimum sizes verify_hdr checks, whether driver data (udata) may follow the core structs, and
 * what its handler does first. The write() path and DEVICE/INVOKE_WRITE run the same entry.
 *
 * @param requestSize  req_size: sizeof the request struct, or offsetofend(member) for extended ones
 * @param responseSize resp_size: likewise for the response; 0 for commands without one
 * @param context      when the handler asks for the context ({@link ContextUse})
 * @param inPieces     the request is read in pieces (uverbs_request_start/next/finish: the posts),
 *                     not with one uverbs_request of its struct
 */
record WriteCommand(int number, String name, boolean extended, CStruct request, CStruct response,
                    int requestSize, int responseSize, boolean udata, Handler handler, ContextUse context,
                    boolean inPieces) {

    /** The command's body: reads its request from {@code c}, acts on the model, writes the response. */
    @FunctionalInterface
    interface Handler {
        void run(Command c) throws Errno;
    }

    /** Where a handler first needs the file's context, which decides which errno a missing one gives. */
    enum ContextUse {
        /** ib_uverbs_get_ucontext before reading the request (the queries): EINVAL first. */
        BEFORE_REQUEST,
        /** uobj_alloc right after uverbs_request (the creates): EINVAL after the request's checks. */
        AFTER_REQUEST,
        /** Only through lookups, which find nothing without a context (ENOENT). */
        AT_LOOKUP
    }

    /** UAPI_DEF_WRITE_IO / _UDATA_IO: a request that starts with the response address, and a response. */
    static WriteCommand io(int number, String name, CStruct request, CStruct response, boolean udata, Handler h) {
        return new WriteCommand(number, name, false, request, response, request.size(), response.size(), udata, h,
                ContextUse.AT_LOOKUP, false);
    }

    /** UAPI_DEF_WRITE_I / _UDATA_I: a request and no response. */
    static WriteCommand in(int number, String name, CStruct request, boolean udata, Handler h) {
        return new WriteCommand(number, name, false, request, null, request.size(), 0, udata, h,
                ContextUse.AT_LOOKUP, false);
    }

    /** UAPI_DEF_WRITE_IO_EX: sizes up to and including the named members (offsetofend). */
    static WriteCommand ex(int number, String name, CStruct request, String requestEnd, CStruct response,
                           String responseEnd, Handler h) {
        return new WriteCommand(number, name, true, request, response, request.endOf(requestEnd),
                response.endOf(responseEnd), true, h, ContextUse.AT_LOOKUP, false);
    }

    /** The handler asks for the context before anything else. */
    WriteCommand contextFirst() {
        return new WriteCommand(number, name, extended, request, response, requestSize, responseSize, udata, handler,
                ContextUse.BEFORE_REQUEST, inPieces);
    }

    /** The handler starts by allocating its object, which needs the context. */
    WriteCommand allocates() {
        return new WriteCommand(number, name, extended, request, response, requestSize, responseSize, udata, handler,
                ContextUse.AFTER_REQUEST, inPieces);
    }

    WriteCommand readInPieces() {
        return new WriteCommand(number, name, extended, request, response, requestSize, responseSize, udata, handler,
                context, true);
    }

    boolean hasResponse() {
        return response != null;
    }

    /**
     * req_size and resp_size as uapi_create_write fills them: only plain methods have them, so
     * verify_hdr's and INVOKE_WRITE's ENOSPC checks never fire for extended ones.
     */
    int checkedRequestSize() {
        return extended ? 0 : requestSize;
    }

    int checkedResponseSize() {
        return extended ? 0 : responseSize;
    }
}
