package ipoib.verbs.loopback.subnet;

/** A net file that cannot be loaded: names the file, the line and what is allowed there. */
public final class NetFileException extends IllegalArgumentException {
    private static final long serialVersionUID = 1L;

    private final String file;
    private final int line;

    public NetFileException(String file, int line, String message) {
        super("net file " + file + (line > 0 ? " line " + line : "") + ": " + message);
        this.file = file;
        this.line = line;
    }

    /** The file's name as given. */
    public String file() {
        return file;
    }

    /** The 1-based line, or 0 when the error concerns the whole file (a cable declared at one end only). */
    public int line() {
        return line;
    }
}
