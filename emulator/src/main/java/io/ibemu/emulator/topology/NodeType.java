package io.ibemu.emulator.topology;

/** NodeInfo NodeType (IBA 14.2.5.3): the codes the fabric reports. */
public enum NodeType {
    CA(1), SWITCH(2), ROUTER(3);

    private final int code;

    NodeType(int code) {
        this.code = code;
    }

    public int code() {
        return code;
    }

    public static NodeType ofCode(int code) {
        for (NodeType t : values()) {
            if (t.code == code) {
                return t;
            }
        }
        throw new IllegalArgumentException("node type " + code);
    }
}
