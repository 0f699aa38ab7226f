package io.ibemu.emulator.rdmacm;

import io.ibemu.devfs.device.Caller;
import io.ibemu.kernel.CField;
import io.ibemu.kernel.CStruct;
import io.ibemu.kernel.Errno;

/**
 * One decoded ucma write(): the command's request bytes (what followed the header in the write,
 * zero-padded to the request struct, as copy_from_user of {@code sizeof(cmd)} reads them), the
 * header's {@code out} length, and the file and caller it runs for.
 */
record UcmaRequest(UcmaFile file, Caller caller, UcmaCommand command, byte[] in, int outLength, int fileFlags) {
    private static final int O_NONBLOCK = 04000;

    /** O_NONBLOCK on the file now (file->filp->f_flags: an fcntl since the open counts). */
    boolean nonBlocking() {
        return (caller.fileFlags(fileFlags) & O_NONBLOCK) != 0;
    }

    long get(String member) {
        return command.request().field(member).get(in, 0);
    }

    int getInt(String member) {
        return (int) get(member);
    }

    /** A byte array member, or a nested struct member whole (its first field to offsetofend). */
    byte[] bytes(String member) {
        CStruct s = command.request();
        if (s.fields().containsKey(member)) {
            return s.field(member).slice(in);
        }
        int from = s.fields().values().stream().filter(f -> f.name().startsWith(member + "."))
                .mapToInt(CField::offset).min().orElseThrow();
        return java.util.Arrays.copyOfRange(in, from, s.endOf(member));
    }

    /** The ucma_context the request's {@code id} names, as ucma_get_ctx finds it. */
    UcmaContext context() throws Errno {
        return file.device.contexts.get(file, getInt("id"));
    }

    /** copy_to_user of a response to the request's {@code response} address: EFAULT when it cannot. */
    void respond(byte[] response) throws Errno {
        respond(get("response"), response);
    }

    /** As much of {@code response} as {@code hdr.out} holds (the queries' min_t(size_t, out_len, sizeof(resp))). */
    void respondWithin(byte[] response) throws Errno {
        respond(response.length <= outLength ? response : java.util.Arrays.copyOf(response, outLength));
    }

    void respond(long address, byte[] response) throws Errno {
        try {
            caller.writeMemory(address, response);
        } catch (Errno e) {
            throw Errno.of(Errno.EFAULT);
        }
    }
}
