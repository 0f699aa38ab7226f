package io.ibemu.sysfstree;

import io.ibemu.kernel.Errno;

/**
 * One open file of an attribute, as sysfs's seq_file: the value is formatted at a read from
 * offset 0 (or the first read) and later reads at other offsets are served from that text.
 */
final class OpenAttribute {

    private final Attribute attribute;
    private volatile byte[] shown;

    OpenAttribute(Attribute attribute) {
        this.attribute = attribute;
    }

    /** The text a read at {@code offset} is served from. */
    byte[] textFor(long offset) throws Errno {
        checkAttached();
        byte[] text = shown;
        if (offset == 0 || text == null) {
            text = attribute.show();
            shown = text;
        }
        return text;
    }

    void store(byte[] value) throws Errno {
        checkAttached();
        attribute.store(value);
    }

    private void checkAttached() throws Errno {
        if (attribute.detached()) {
            throw Errno.of(Errno.ENODEV);
        }
    }
}
