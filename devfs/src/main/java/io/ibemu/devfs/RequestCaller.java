package io.ibemu.devfs;

import io.ibemu.devfs.fuse.Request;
import io.ibemu.kernel.Errno;
import io.ibemu.kernel.ProcessMemory;

/**
 * The caller of one FUSE request. Over libfuse, {@link #interrupted()} asks libfuse about the
 * request the FUSE thread is serving, so it answers only on that thread; served directly, it is
 * the request's own flag (set by FUSE_INTERRUPT) and answers on any thread. Shutdown counts
 * everywhere.
 */
final class RequestCaller implements Caller {

    private final int tid;
    private final int uid;
    private final int gid;
    private final Thread fuseThread;
    private final PollNotice mount;
    /** The request served directly, or null over libfuse. */
    private final Request request;

    private RequestCaller(int tid, int uid, int gid, PollNotice mount, Request request) {
        this.tid = tid;
        this.uid = uid;
        this.gid = gid;
        this.fuseThread = Thread.currentThread();
        this.mount = mount;
        this.request = request;
    }

    /** The caller of the request the current libfuse thread is serving. */
    static RequestCaller current(long context, DeviceFileSystem fileSystem) {
        return new RequestCaller(Fuse2.tid(context), Fuse2.uid(context), Fuse2.gid(context), fileSystem, null);
    }

    /** The caller of a request served directly ({@code mount} says when the mount closes). */
    static RequestCaller of(Request request, PollNotice mount) {
        return new RequestCaller(request.pid(), request.uid(), request.gid(), mount, request);
    }

    @Override
    public int tid() {
        return tid;
    }

    @Override
    public int uid() {
        return uid;
    }

    @Override
    public int gid() {
        return gid;
    }

    @Override
    public boolean interrupted() {
        if (mount.closing()) {
            return true;
        }
        if (request != null) {
            return request.interrupted();
        }
        // fuse_interrupted() dereferences the thread's current request: NULL off the FUSE thread
        return Thread.currentThread() == fuseThread && Fuse2.LIB.fuse_interrupted() != 0;
    }

    @Override
    public void writeMemory(long address, byte[] data) throws Errno {
        ProcessMemory.write(tid, address, data, 0, data.length);
    }

    @Override
    public byte[] readMemory(long address, int length) throws Errno {
        return ProcessMemory.read(tid, address, length);
    }

    @Override
    public String toString() {
        return "tid " + tid + " uid " + uid;
    }
}
