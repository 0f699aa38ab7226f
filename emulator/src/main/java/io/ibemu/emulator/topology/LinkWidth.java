package io.ibemu.emulator.topology;

/**
 * A link's width: lanes, and the PortInfo LinkWidthActive/Enabled/Supported bit (IBA 14.2.5.6:
 * 1 = 1x, 2 = 4x, 4 = 8x, 8 = 12x, 16 = 2x).
 */
public enum LinkWidth {
    X1(1, 1), X4(2, 4), X8(4, 8), X12(8, 12), X2(16, 2);

    private final int code;
    private final int lanes;

    LinkWidth(int code, int lanes) {
        this.code = code;
        this.lanes = lanes;
    }

    /** The PortInfo encoding. */
    public int code() {
        return code;
    }

    public int lanes() {
        return lanes;
    }

    /** "4X", as sysfs rate and ibstat print it. */
    public String label() {
        return lanes + "X";
    }

    public static LinkWidth ofLanes(int lanes) {
        for (LinkWidth w : values()) {
            if (w.lanes == lanes) {
                return w;
            }
        }
        throw new IllegalArgumentException("no " + lanes + "x link width");
    }

    public static LinkWidth ofCode(int code) {
        for (LinkWidth w : values()) {
            if (w.code == code) {
                return w;
            }
        }
        throw new IllegalArgumentException("link width code " + code);
    }

    /** The widest width whose bit is in an enabled/supported mask (1..31), as a link trains to. */
    public static LinkWidth widestIn(int mask) {
        for (LinkWidth w : new LinkWidth[] {X12, X8, X4, X2, X1}) {
            if ((mask & w.code) != 0) {
                return w;
            }
        }
        throw new IllegalArgumentException("link width mask " + mask);
    }
}
