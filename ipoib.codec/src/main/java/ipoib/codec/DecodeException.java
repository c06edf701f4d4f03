package ipoib.codec;

/**
 * Input that does not decode: truncated, a wrong length or type, a reserved value, a checksum
 * that does not match. Names the field and its offset in the buffer.
 */
public final class DecodeException extends Exception {
    private static final long serialVersionUID = 1L;
    private final String field;
    private final long offset;

    /**
     * @param field the field that is wrong, e.g. {@code "ARP hardware length"}
     * @param offset its offset from the start of the decoded buffer
     * @param problem what is wrong and what was expected
     */
    public DecodeException(String field, long offset, String problem) {
        super(field + " at offset " + offset + ": " + problem);
        this.field = field;
        this.offset = offset;
    }

    /** The field that is wrong. */
    public String field() {
        return field;
    }

    /** Its offset from the start of the decoded buffer. */
    public long offset() {
        return offset;
    }
}
