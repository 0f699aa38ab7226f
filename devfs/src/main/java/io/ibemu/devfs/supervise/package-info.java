/**
 * The daemon's half of the launcher's seccomp-notify supervisor: {@link
 * io.ibemu.devfs.supervise.Supervisor} takes each supervised process tree's listener, and a
 * {@link io.ibemu.devfs.supervise.Listener} receives the calls the stub's filter stops and hands
 * each kind to one class: {@link io.ibemu.devfs.supervise.NodeCalls} (open of a device node,
 * fstat and write of its descriptors), {@link io.ibemu.devfs.supervise.SocketFileCalls} (read,
 * ioctl and dup of files carried in socket pairs), {@link io.ibemu.devfs.supervise.NetlinkCalls}
 * (emulated NETLINK_RDMA sockets) and {@link io.ibemu.devfs.supervise.SignalCalls}
 * (rt_sigreturn: calls a signal ended before the daemon saw them run again). Every
 * notification is answered: CONTINUE when it is not ours, else the device's result or the
 * kernel's errno; the device files are those of {@link io.ibemu.devfs.device}.
 */
package io.ibemu.devfs.supervise;
