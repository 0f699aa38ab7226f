package io.ibemu.devfs;

import io.ibemu.devfs.device.Caller;
import io.ibemu.devfs.fuse.Request;

/**
 * The caller of one FUSE or CUSE request. {@link #interrupted()} is the request's own flag (set
 * by FUSE_INTERRUPT), on any thread; the mount's shutdown counts too.
 */
final class RequestCaller implements Caller {

    private final int tid;
    private final int uid;
    private final int gid;
    private final PollNotice mount;
    private final Request request;

    private RequestCaller(int tid, int uid, int gid, PollNotice mount, Request request) {
        this.tid = tid;
        this.uid = uid;
        this.gid = gid;
        this.mount = mount;
        this.request = request;
    }

    /** The caller of {@code request} ({@code mount} says when the mount closes). */
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
        return mount.closing() || request.interrupted();
    }

    @Override
    public String toString() {
        return "tid " + tid + " uid " + uid;
    }
}
