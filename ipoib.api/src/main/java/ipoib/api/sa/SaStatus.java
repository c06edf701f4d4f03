package ipoib.api.sa;

/**
 * MAD status codes of subnet administration answers (IBA 13.4.7 and 15.2.2 table 178).
 */
public final class SaStatus {
    private SaStatus() {}

    public static final int SUCCESS = 0x0000;
    public static final int BUSY = 0x0001;
    public static final int REDIRECT = 0x0002;
    public static final int BAD_VERSION = 0x0004;
    public static final int METHOD_NOT_SUPPORTED = 0x0008;
    public static final int METHOD_ATTRIBUTE_NOT_SUPPORTED = 0x000C;
    public static final int INVALID_ATTRIBUTE_VALUE = 0x001C;
    /** ERR_NO_RESOURCES. */
    public static final int NO_RESOURCES = 0x0100;
    /** ERR_REQ_INVALID. */
    public static final int REQUEST_INVALID = 0x0200;
    /** ERR_NO_RECORDS: e.g. no path to an unknown GID, no such group. */
    public static final int NO_RECORDS = 0x0300;
    /** ERR_REQ_TOO_MANY_RECORDS. */
    public static final int TOO_MANY_RECORDS = 0x0400;
    /** ERR_REQ_INVALID_GID. */
    public static final int INVALID_GID = 0x0500;
    /** ERR_REQ_INSUFFICIENT_COMPONENTS: e.g. a join of a missing group without create components. */
    public static final int INSUFFICIENT_COMPONENTS = 0x0600;
    /** ERR_REQ_DENIED. */
    public static final int DENIED = 0x0700;

    /** A readable name of a status, for messages and logs. */
    public static String describe(int status) {
        String name = switch (status & 0xFF1F) {
            case SUCCESS -> "success";
            case BUSY -> "busy";
            case REDIRECT -> "redirect";
            case BAD_VERSION -> "bad version";
            case METHOD_NOT_SUPPORTED -> "method not supported";
            case METHOD_ATTRIBUTE_NOT_SUPPORTED -> "method/attribute combination not supported";
            case INVALID_ATTRIBUTE_VALUE -> "invalid attribute value";
            case NO_RESOURCES -> "no resources";
            case REQUEST_INVALID -> "request invalid";
            case NO_RECORDS -> "no records";
            case TOO_MANY_RECORDS -> "too many records";
            case INVALID_GID -> "invalid GID";
            case INSUFFICIENT_COMPONENTS -> "insufficient components";
            case DENIED -> "denied";
            default -> "unknown status";
        };
        return String.format("0x%04x (%s)", status, name);
    }
}
