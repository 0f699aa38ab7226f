package io.ibemu.emulator.cm;

import io.ibemu.emulator.agent.MadLayer;
import io.ibemu.emulator.hca.Hca;
import java.util.ArrayList;
import java.util.List;

/**
 * The Communication Manager of one emulated fabric (IBA vol 1 ch. 12; cm.c's {@code struct
 * ib_cm}): a CM agent on QP1 of every local HCA port, the tables of ids by local id, by remote
 * id and by listened service, and the CM's own thread, which runs every timer and calls every
 * handler (never under the model's or the fabric's lock). Created once by the daemon.
 */
public final class Cm implements AutoCloseable {
    private final MadLayer layer;
    private final List<CmId> ids = new ArrayList<>();
    private int nextLocalId = 1;

    public Cm(MadLayer layer) {
        this.layer = layer;
    }

    /** ib_create_cm_id: a new id in IDLE on {@code hca}, whose events go to {@code handler}. */
    public synchronized CmId createId(Hca hca, CmHandler handler) {
        CmId id = new CmId(this, hca, handler, nextLocalId++);
        ids.add(id);
        return id;
    }

    /** The live ids (for the control view), in creation order. */
    public synchronized List<CmId> ids() {
        return List.copyOf(ids);
    }

    @Override
    public void close() {
    }
}
