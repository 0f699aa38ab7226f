package io.ibemu.emulator.cm;

/**
 * The consumer's cm_handler: called on the CM's thread, one event at a time, never holding the
 * model's or the fabric's lock, so it may block briefly and call back into {@link CmId}. For
 * {@link CmEvent.ReqReceived} and {@link CmEvent.SidrReqReceived} {@code id} is a new id made
 * for the connection (the listening id is in the event), as cm_req_handler does; it inherits
 * the listener's handler.
 */
@FunctionalInterface
public interface CmHandler {
    void handle(CmId id, CmEvent event);
}
