package io.ibemu.devfs;

/**
 * The caller of one FUSE request. {@link #interrupted()} asks libfuse about the request the FUSE
 * thread is serving, so it answers only on that thread; elsewhere only shutdown counts.
 */
final class RequestCaller implements Caller {

    private final int tid;
    private final int uid;
    private final int gid;
    private final Thread fuseThread;
    private final DeviceFileSystem fileSystem;

    private RequestCaller(int tid, int uid, int gid, DeviceFileSystem fileSystem) {
        this.tid = tid;
        this.uid = uid;
        this.gid = gid;
        this.fuseThread = Thread.currentThread();
        this.fileSystem = fileSystem;
    }

    /** The caller of the request the current FUSE thread is serving. */
    static RequestCaller current(long context, DeviceFileSystem fileSystem) {
        return new RequestCaller(Fuse2.tid(context), Fuse2.uid(context), Fuse2.gid(context), fileSystem);
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
        if (fileSystem.closing()) {
            return true;
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
