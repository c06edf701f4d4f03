package ipoib.codec.mad;

/**
 * Attribute IDs of the MADs this codec knows: the class-independent attributes of IBA 1.2.1
 * §13.4.8 (ClassPortInfo, Notice, InformInfo) and the subnet administration records of §15.2.5.
 */
public final class MadAttribute {
    private MadAttribute() {}

    public static final int CLASS_PORT_INFO = 0x0001;
    /** Notice (§13.4.8.2): carried by Trap and Report. */
    public static final int NOTICE = 0x0002;
    /** InformInfo (§13.4.8.3): subscriptions to traps, sent with Set. */
    public static final int INFORM_INFO = 0x0003;
    public static final int SERVICE_RECORD = 0x0031;
    /** PathRecord (§15.2.5.16). */
    public static final int PATH_RECORD = 0x0035;
    /** MCMemberRecord (§15.2.5.17). */
    public static final int MC_MEMBER_RECORD = 0x0038;
    public static final int INFORM_INFO_RECORD = 0x00F3;
}
