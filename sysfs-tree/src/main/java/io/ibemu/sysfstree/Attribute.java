package io.ibemu.sysfstree;

import io.ibemu.kernel.Errno;
import io.ibemu.kernel.Fatal;
import java.lang.System.Logger.Level;

/**
 * An attribute file: {@code show} formats the value, {@code store} takes a written one. Both
 * are bytes, as in sysfs: text attributes are adapted by {@link SysDir}.
 */
final class Attribute extends KernfsNode {

    /** sysfs reports every attribute as one page, whatever its value's length. */
    static final long PAGE_SIZE = 4096;

    private static final System.Logger LOG = System.getLogger(Attribute.class.getName());

    private final String name;
    private final ByteShow show;
    private final ByteStore store;

    Attribute(long inode, String name, int permissions, ByteShow show, ByteStore store) {
        super(inode, permissions);
        this.name = name;
        this.show = show;
        this.store = store;
    }

    /** As kernfs_fop_open: reading needs a read bit and a show method, even for root. */
    boolean readable() {
        return show != null && (permissions() & 0444) != 0;
    }

    /** As kernfs_fop_open: writing needs a write bit and a store method, even for root. */
    boolean writable() {
        return store != null && (permissions() & 0222) != 0;
    }

    /** The value as show formats it now; a failing or null show is EIO, logged. */
    byte[] show() throws Errno {
        if (show == null) {
            throw Errno.of(Errno.EIO);
        }
        byte[] value;
        try {
            value = show.show();
        } catch (Errno e) {
            throw e;
        } catch (RuntimeException | Error e) {
            if (!Fatal.check(e, "show of attribute " + name)) {
                LOG.log(Level.WARNING, "show of attribute " + name + " failed", e);
            }
            throw Errno.of(Errno.EIO);
        }
        if (value == null) {
            LOG.log(Level.WARNING, "show of attribute " + name + " returned null");
            throw Errno.of(Errno.EIO);
        }
        return value;
    }

    /** Passes the written bytes to store; an unexpected exception is EIO, logged. */
    void store(byte[] value) throws Errno {
        if (store == null) {
            throw Errno.of(Errno.EIO);
        }
        try {
            store.store(value);
        } catch (Errno e) {
            throw e;
        } catch (Exception | Error e) {
            if (!Fatal.check(e, "store of attribute " + name)) {
                LOG.log(Level.WARNING, "store of attribute " + name + " failed", e);
            }
            throw Errno.of(Errno.EIO);
        }
    }

    @Override
    int fileType() {
        return S_IFREG;
    }

    @Override
    long size() {
        return PAGE_SIZE;
    }

    @Override
    long linkCount() {
        return 1;
    }
}
