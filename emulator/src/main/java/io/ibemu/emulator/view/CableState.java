package io.ibemu.emulator.view;

import io.ibemu.emulator.fabric.PhysPortState;
import io.ibemu.emulator.fabric.Port;
import io.ibemu.emulator.fabric.PortState;

/** What a cable looks like in a picture: the state of its link, worst end first, and its colours. */
public enum CableState {
    /** Drawn from a topology file: no link state yet. */
    PLANNED("planned", "#546e7a", "#eceff1", "solid"),
    ACTIVE("Active", "#2e7d32", "#c8e6c9", "solid"),
    /** LinkUp, but a port not yet Active (Init, Armed: an SM has not finished). */
    UP("LinkUp", "#ef6c00", "#ffe0b2", "solid"),
    /** Plugged in but not up (Polling, Disabled). */
    DOWN("Down", "#9e9e9e", "#eeeeee", "dashed"),
    /** Pulled out with ctl link cut. */
    CUT("cut", "#c62828", "#ffcdd2", "dashed");

    private final String label;
    private final String line;
    private final String fill;
    private final String style;

    CableState(String label, String line, String fill, String style) {
        this.label = label;
        this.line = line;
        this.fill = fill;
        this.style = style;
    }

    public String label() {
        return label;
    }

    /** The cable's colour. */
    public String line() {
        return line;
    }

    /** A light shade of it, for a host drawn as a cell of its leaf's table. */
    public String fill() {
        return fill;
    }

    public String style() {
        return style;
    }

    /** The live state of the cable at {@code p}. */
    public static CableState of(Port p) {
        if (p.isCut()) {
            return CUT;
        }
        Port q = p.peer().orElse(null);
        if (q == null || p.physicalState() != PhysPortState.LINK_UP) {
            return DOWN;
        }
        return p.state() == PortState.ACTIVE && q.state() == PortState.ACTIVE ? ACTIVE : UP;
    }

    /** The worse of two, for cables drawn as one line. */
    CableState worse(CableState other) {
        return other.severity() > severity() ? other : this;
    }

    private int severity() {
        return switch (this) {
            case PLANNED, ACTIVE -> 0;
            case UP -> 1;
            case DOWN -> 2;
            case CUT -> 3;
        };
    }
}
