/**
 * The daemon's private view of the file system, inside its own mount namespace: entries grafted
 * into /dev, /sys or /run that only this namespace sees, with every host entry still in place
 * ({@link io.ibemu.devfs.ns.MountNamespace}); the mount system calls it needs are in {@link
 * io.ibemu.devfs.ns.MountCalls}. Nothing is ever created on a host file system.
 */
package io.ibemu.devfs.ns;
