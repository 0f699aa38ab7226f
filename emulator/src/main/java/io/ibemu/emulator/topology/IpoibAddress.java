package io.ibemu.emulator.topology;

/**
 * The IPv4 address and prefix length a topology gives a CA port's IPoIB interface, as
 * {@code ip addr} shows it: {@code 10.1.0.1/24}. {@code address} holds the four octets, first
 * octet in the high byte.
 */
public record IpoibAddress(int address, int prefix) {
    public IpoibAddress {
        if (prefix < 1 || prefix > 32) {
            throw new IllegalArgumentException("prefix length " + prefix + " is not 1..32");
        }
    }

    /**
     * {@code a.b.c.d/n} with four decimal octets and a prefix of 1 to 32 bits; the address may
     * not be the network's own or its broadcast address (the kernel's ip would take them, but no
     * host on the link could then be reached as that port).
     *
     * @throws IllegalArgumentException saying what is wrong, for the caller to place
     */
    public static IpoibAddress parse(String text) {
        int slash = text.indexOf('/');
        if (slash < 0) {
            throw new IllegalArgumentException("'" + text + "' has no prefix length: expected an IPv4 address "
                    + "with one, like 10.1.0.1/24");
        }
        String[] octets = text.substring(0, slash).split("\\.", -1);
        String bits = text.substring(slash + 1);
        if (octets.length != 4 || !bits.matches("[0-9]{1,2}")) {
            throw new IllegalArgumentException("'" + text + "' is not an IPv4 address with a prefix length, like "
                    + "10.1.0.1/24");
        }
        int address = 0;
        for (String o : octets) {
            if (!o.matches("[0-9]{1,3}") || Integer.parseInt(o) > 255) {
                throw new IllegalArgumentException("'" + text + "': '" + o + "' is not an octet 0..255");
            }
            address = address << 8 | Integer.parseInt(o);
        }
        int prefix = Integer.parseInt(bits);
        if (prefix < 1 || prefix > 32) {
            throw new IllegalArgumentException("'" + text + "': prefix length " + bits + " is not 1..32");
        }
        IpoibAddress a = new IpoibAddress(address, prefix);
        if (prefix <= 30 && (a.host() == 0 || a.host() == a.hostMask())) {
            throw new IllegalArgumentException("'" + text + "' is the network's "
                    + (a.host() == 0 ? "own" : "broadcast") + " address, not a host's");
        }
        return a;
    }

    private int host() {
        return address & hostMask();
    }

    private int hostMask() {
        return prefix == 32 ? 0 : -1 >>> prefix;
    }

    /** Only the address, dotted: {@code 10.1.0.1}. */
    public String dotted() {
        return (address >>> 24) + "." + (address >>> 16 & 0xFF) + "." + (address >>> 8 & 0xFF) + "." + (address & 0xFF);
    }

    /** {@code 10.1.0.1/24}, as {@link #parse} reads it and ip(8) takes it. */
    @Override
    public String toString() {
        return dotted() + "/" + prefix;
    }
}
