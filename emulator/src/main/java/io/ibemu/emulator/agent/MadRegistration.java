package io.ibemu.emulator.agent;

/**
 * struct ib_mad_reg_req: the unsolicited MADs an agent asks for. {@code methods} holds bits
 * 0..127 in two longs (bit i in word i / 64). {@code mgmtClass} 0 never appears here: an agent
 * with no registration receives only responses to its own requests.
 */
public record MadRegistration(int mgmtClass, int classVersion, long[] methods, int oui) {

    public boolean hasMethod(int method) {
        return method < 128 && (methods[method >>> 6] & (1L << (method & 63))) != 0;
    }

    public boolean sharesMethodWith(MadRegistration other) {
        return (methods[0] & other.methods[0]) != 0 || (methods[1] & other.methods[1]) != 0;
    }
}
