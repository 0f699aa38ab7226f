package io.ibemu.emulator.uverbs;

import io.ibemu.devfs.device.Caller;
import io.ibemu.kernel.CField;
import io.ibemu.emulator.uverbs.ioctl.AttrSpec;
import io.ibemu.emulator.uverbs.ioctl.Bundle;
import io.ibemu.kernel.Errno;

import java.util.Arrays;

/**
 * One decoded write() command, {@code struct uverbs_attr_bundle} for the write path: the core
 * request bytes (ucore in, zero-padded to the request struct), where the response goes and how
 * long it may be (ucore out), the driver's part (udata in, and where udata out goes and how
 * long it may be), and the file and caller it runs for. Through DEVICE/INVOKE_WRITE ucore is the
 * CORE_IN and CORE_OUT attributes of an ioctl ({@link #ioctl}), udata its UHW_IN and UHW_OUT,
 * and what the response writes is flagged VALID_OUTPUT there.
 */
final class Command {
    /** No bytes: an absent udata, a driver with nothing to say; shared, since nothing writes into it. */
    static final byte[] NOTHING = new byte[0];

    final UverbsFile file;
    final Caller caller;
    final WriteCommand spec;
    /** The core request: every byte after the header(s), zero-padded to at least the request struct. */
    final byte[] in;
    /** How many of {@link #in}'s bytes the caller really wrote. */
    final int inLength;
    final long response;
    final int outLength;
    /** The driver's request bytes: what followed the core request (ib_udata inbuf; UHW_IN). */
    final byte[] udataIn;
    /** Where the driver's response goes (ib_udata outbuf; UHW_OUT) and its room (outlen). */
    final long udataOut;
    final int udataOutLength;
    /** The ioctl that tunnels this command, or null for write(). */
    private final Bundle ioctl;
    private final int outAttr;

    Command(UverbsFile file, Caller caller, WriteCommand spec, byte[] in, int inLength, long response,
            int outLength, byte[] udataIn, long udataOut, int udataOutLength) {
        this(file, caller, spec, in, inLength, response, outLength, udataIn, udataOut, udataOutLength, null, -1);
    }

    private Command(UverbsFile file, Caller caller, WriteCommand spec, byte[] in, int inLength, long response,
                    int outLength, byte[] udataIn, long udataOut, int udataOutLength, Bundle ioctl, int outAttr) {
        this.udataIn = udataIn;
        this.udataOut = udataOut;
        this.udataOutLength = udataOutLength;
        this.ioctl = ioctl;
        this.outAttr = outAttr;
        this.file = file;
        this.caller = caller;
        this.spec = spec;
        this.in = in.length >= requestSize(spec) ? in : Arrays.copyOf(in, requestSize(spec));
        this.inLength = inLength;
        this.response = response;
        this.outLength = outLength;
    }

    /**
     * The command INVOKE_WRITE runs: ucore in is {@code in} (CORE_IN, whole: its driver data
     * comes as UHW_IN), ucore out the CORE_OUT attribute {@code outAttr} of {@code b} if given.
     */
    static Command ioctl(UverbsFile file, WriteCommand spec, byte[] in, Bundle b, int outAttr) throws Errno {
        boolean out = b.has(outAttr);
        boolean uhwOut = b.has(AttrSpec.UHW_OUT);
        return new Command(file, b.caller(), spec, in, in.length, out ? b.address(outAttr) : 0,
                out ? b.length(outAttr) : 0, b.has(AttrSpec.UHW_IN) ? b.in(AttrSpec.UHW_IN) : NOTHING,
                uhwOut ? b.address(AttrSpec.UHW_OUT) : 0, uhwOut ? b.length(AttrSpec.UHW_OUT) : 0, b, outAttr);
    }

    private static int requestSize(WriteCommand spec) {
        return spec.request() == null ? 0 : spec.request().size();
    }

    /** An unsigned request member (up to 8 bytes), from the request struct. */
    long u(String member) {
        return spec.request().field(member).get(in, 0);
    }

    /** A member by its field, for the hot commands that look their fields up once. */
    long at(CField field, int base) {
        return field.get(in, base);
    }

    int u32(String member) {
        return (int) u(member);
    }

    byte[] bytes(String member) {
        return spec.request().field(member).slice(in);
    }

    /** A response of the command's response struct, to be filled and {@link #respond respond}ed. */
    byte[] newResponse() {
        return new byte[spec.response().size()];
    }

    void put(byte[] resp, String member, long value) {
        spec.response().field(member).put(resp, value);
    }

    /**
     * uverbs_response: the response, cut or zero-filled to the caller's out length, written into
     * the caller's memory; EFAULT where it cannot be written.
     */
    void respond(byte[] resp) throws Errno {
        if (ioctl != null) {
            if (ioctl.has(outAttr)) {
                ioctl.copyToStructOrZero(outAttr, resp); // uverbs_response under ioctl
            }
            return;
        }
        respondAt(response, resp, outLength);
    }

    /**
     * EFAULT unless the response can be written, leaving its bytes as they are (written back
     * unchanged): for commands whose side effect cannot be taken back once made.
     */
    void checkResponseWritable() throws Errno {
        if (outLength == 0) {
            return;
        }
        try {
            caller.writeMemory(response, caller.readMemory(response, outLength));
        } catch (Errno e) {
            throw Errno.of(Errno.EFAULT);
        }
    }

    /**
     * The driver's udata response: EFAULT where it cannot be written; more than the room the
     * program gave is a driver fault (the drivers check the room, ib_copy_to_udata does not), ENOSPC.
     */
    void respondDriver(byte[] data) throws Errno {
        if (data.length == 0) {
            return;
        }
        if (data.length > udataOutLength) {
            throw Errno.of(Errno.ENOSPC);
        }
        respondAt(udataOut, data, data.length);
    }

    void respondAt(long address, byte[] resp, int length) throws Errno {
        if (length == 0) {
            return;
        }
        byte[] out = resp.length == length ? resp : Arrays.copyOf(resp, length);
        if (ioctl != null && address == response && ioctl.has(outAttr)) {
            ioctl.writeOutput(outAttr, address, out); // copy_to_user, then uverbs_output_written
            return;
        }
        try {
            caller.writeMemory(address, out);
        } catch (Errno e) {
            throw Errno.of(Errno.EFAULT);
        }
    }
}
