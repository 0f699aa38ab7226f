package io.ibemu.devfs;

import java.io.IOException;
import java.net.SocketException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;

/**
 * A listening Unix socket only root reaches: bound under a temporary name, made 0600, then
 * renamed into place, so no client ever connects to it before its mode is set.
 */
public final class PrivateSocket {

    private PrivateSocket() {
    }

    /** Binds {@code socket}; {@code what} names it in errors (e.g. "the control socket"). */
    public static ServerSocketChannel bind(Path socket, String what) throws IOException {
        Path temporary = socket.resolveSibling(socket.getFileName() + ".new");
        Files.deleteIfExists(temporary);
        ServerSocketChannel server = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
        try {
            try {
                server.bind(UnixDomainSocketAddress.of(temporary));
            } catch (SocketException e) {
                // sun_path holds 108 bytes: a deep state directory does not fit
                throw new IOException("cannot bind " + what + " " + temporary + " (" + e.getMessage()
                        + "); a Unix socket path has at most 107 bytes: use a shorter IBEMU_STATE_DIR", e);
            }
            Files.setPosixFilePermissions(temporary, PosixFilePermissions.fromString("rw-------"));
            Files.move(temporary, socket, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
            return server;
        } catch (IOException | RuntimeException e) {
            server.close();
            Files.deleteIfExists(temporary);
            throw e;
        }
    }
}
