package ipoib.codec.mad;

/**
 * MAD method codes (IBA 1.2.1 §13.4.5 for the common methods, §15.2.2 for the subnet
 * administration ones). The high bit (R) marks a response.
 */
public final class MadMethod {
    private MadMethod() {}

    public static final int GET = 0x01;
    public static final int SET = 0x02;
    public static final int SEND = 0x03;
    public static final int TRAP = 0x05;
    public static final int REPORT = 0x06;
    public static final int TRAP_REPRESS = 0x07;
    /** SubnAdmGetTable (SA only). */
    public static final int GET_TABLE = 0x12;
    /** SubnAdmGetTraceTable (SA only). */
    public static final int GET_TRACE_TABLE = 0x13;
    /** SubnAdmGetMulti (SA only). */
    public static final int GET_MULTI = 0x14;
    /** SubnAdmDelete (SA only). */
    public static final int DELETE = 0x15;
    /** The R bit: set in every response method. */
    public static final int RESPONSE_BIT = 0x80;
    /** Answer to Get and Set. */
    public static final int GET_RESP = 0x81;
    public static final int REPORT_RESP = 0x86;
    public static final int GET_TABLE_RESP = 0x92;
    public static final int GET_MULTI_RESP = 0x94;
    public static final int DELETE_RESP = 0x95;

    /** Whether the R bit is set. */
    public static boolean isResponse(int method) {
        return (method & RESPONSE_BIT) != 0;
    }

    /**
     * The method that answers {@code request}: GetResp for Get and Set, TrapRepress for Trap, the
     * request with the R bit otherwise.
     *
     * @throws IllegalArgumentException for a response method or a value beyond 8 bits
     */
    public static int responseTo(int request) {
        if (request < 0 || request > 0x7F) {
            throw new IllegalArgumentException(String.format("method 0x%02x is not a request", request));
        }
        return switch (request) {
            case GET, SET -> GET_RESP;
            case TRAP -> TRAP_REPRESS;
            default -> request | RESPONSE_BIT;
        };
    }

    /** The IBA name of a method, e.g. {@code "GetTableResp"}, or its hex value. */
    public static String name(int method) {
        return switch (method) {
            case GET -> "Get";
            case SET -> "Set";
            case SEND -> "Send";
            case TRAP -> "Trap";
            case REPORT -> "Report";
            case TRAP_REPRESS -> "TrapRepress";
            case GET_TABLE -> "GetTable";
            case GET_TRACE_TABLE -> "GetTraceTable";
            case GET_MULTI -> "GetMulti";
            case DELETE -> "Delete";
            case GET_RESP -> "GetResp";
            case REPORT_RESP -> "ReportResp";
            case GET_TABLE_RESP -> "GetTableResp";
            case GET_MULTI_RESP -> "GetMultiResp";
            case DELETE_RESP -> "DeleteResp";
            default -> String.format("0x%02x", method);
        };
    }
}
