package io.ibemu.emulator.agent;

import java.util.ArrayList;
import java.util.List;

/** ib_mad_agent: one registration on one port's QP0 or QP1, known fabric-wide by its hi_tid. */
public final class MadAgent {
    private final int hiTid;
    private final MadPort port;
    private final int qpn;
    private final MadRegistration registration;
    private final int rmppVersion;
    private final boolean userRmpp;
    private final MadAgentClient client;
    /** Sends waiting for their response (the kernel's wait_list), in posting order. */
    final List<SendRequest> waiting = new ArrayList<>();
    /** RMPP messages this agent is receiving, or received lately (to re-ACK duplicates). */
    final List<Rmpp.Reassembly> reassemblies = new ArrayList<>();
    boolean registered = true;

    MadAgent(int hiTid, MadPort port, int qpn, MadRegistration registration, int rmppVersion, boolean userRmpp,
             MadAgentClient client) {
        this.hiTid = hiTid;
        this.port = port;
        this.qpn = qpn;
        this.registration = registration;
        this.rmppVersion = rmppVersion;
        this.userRmpp = userRmpp;
        this.client = client;
    }

    public int hiTid() {
        return hiTid;
    }

    public MadPort port() {
        return port;
    }

    public int qpn() {
        return qpn;
    }

    public MadRegistration registration() {
        return registration;
    }

    public int rmppVersion() {
        return rmppVersion;
    }

    /** ib_mad_kernel_rmpp_agent(): the MAD layer segments and reassembles for this agent. */
    public boolean kernelRmpp() {
        return rmppVersion != 0 && !userRmpp;
    }

    MadAgentClient client() {
        return client;
    }

    /** Builds the agent once its hi_tid is known. */
    interface Factory {
        MadAgent create(int hiTid);
    }
}
