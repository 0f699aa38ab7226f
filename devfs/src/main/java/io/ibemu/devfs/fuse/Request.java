package io.ibemu.devfs.fuse;

import java.nio.ByteBuffer;

/**
 * One request read from a {@link Channel}, served on the worker that read it: its header, its
 * body in the worker's input buffer from {@link #BODY} on, and its reply, built in the worker's
 * output buffer from {@link #REPLY} on and sent by {@link #reply}. The buffers are the worker's:
 * use them only on that thread and only until the reply is sent. {@link #interrupted()} may be
 * asked from any thread.
 */
public final class Request {

    /** Where the body starts in {@link #in()}. */
    public static final int BODY = FuseIn.Header.SIZE;
    /** Where the reply body starts in {@link #out()}. */
    public static final int REPLY = FuseOut.HEADER_SIZE;

    private final Session.Worker worker;
    private final FuseIn.Header header;
    private volatile boolean interrupted;
    private boolean answered; // worker thread only

    Request(Session.Worker worker, FuseIn.Header header) {
        this.worker = worker;
        this.header = header;
    }

    public FuseIn.Header header() {
        return header;
    }

    public int opcode() {
        return header.opcode();
    }

    public long unique() {
        return header.unique();
    }

    public long nodeid() {
        return header.nodeid();
    }

    /** The caller's thread id (the kernel sends the task's pid in its namespace: a tid). */
    public int pid() {
        return header.pid();
    }

    public int uid() {
        return header.uid();
    }

    public int gid() {
        return header.gid();
    }

    /** The request as read: header at 0, body at {@link #BODY}. */
    public ByteBuffer in() {
        return worker.in.bytes;
    }

    public int bodyLength() {
        return header.length() - BODY;
    }

    /** The reply under construction: its body goes at {@link #REPLY}. */
    public ByteBuffer out() {
        return worker.out.bytes;
    }

    /** How many body bytes a reply may carry. */
    public int replyCapacity() {
        return worker.out.capacity() - REPLY;
    }

    /** True once the kernel sent FUSE_INTERRUPT for this request (the caller got a signal), or the session stops. */
    public boolean interrupted() {
        return interrupted || worker.session.stopping();
    }

    void interrupt() {
        interrupted = true;
    }

    boolean answered() {
        return answered;
    }

    /** Sends the reply with {@code bodyLength} bytes written at {@link #REPLY} in {@link #out()}. */
    public void reply(int bodyLength) {
        send(0, bodyLength);
    }

    /** Sends the error reply {@code -errno} with no body (FUSE takes errors 1..511 only). */
    public void replyError(int errno) {
        send(-(errno > 0 && errno < 512 ? errno : 5), 0);
    }

    /** Marks a request the kernel expects no answer to (FORGET, BATCH_FORGET, a handled INTERRUPT). */
    public void replyNone() {
        answered = true;
        worker.session.answered(worker);
    }

    private void send(int error, int bodyLength) {
        if (answered) {
            throw new IllegalStateException("request " + header.unique() + " answered twice");
        }
        answered = true;
        // counted idle before the write: the woken caller often asks again before the write returns
        worker.session.answered(worker);
        int length = REPLY + bodyLength;
        FuseOut.header(worker.out.bytes, 0, length, error, header.unique());
        worker.session.sent(worker.session.channel().send(worker.out, length), this);
    }
}
