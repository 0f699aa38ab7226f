package io.ibemu.emulator.topology;

/** A topology file that cannot be read, with where: "source:line: what was expected". */
public final class TopologyException extends Exception {
    private static final long serialVersionUID = 1L;
    private final String sourceName;
    private final int line;

    public TopologyException(String sourceName, int line, String message) {
        super(sourceName + ":" + line + ": " + message);
        this.sourceName = sourceName;
        this.line = line;
    }

    public String sourceName() {
        return sourceName;
    }

    public int line() {
        return line;
    }
}
