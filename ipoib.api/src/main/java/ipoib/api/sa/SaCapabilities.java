package ipoib.api.sa;

/**
 * What a subnet administrator says it supports: the capability masks of its ClassPortInfo
 * (IBA 13.4.8.1, SA bits in IBA 15.2.1.1 and the IBA 1.3 errata).
 *
 * @param capabilityMask the 16-bit CapabilityMask
 * @param capabilityMask2 the 27-bit CapabilityMask2
 * @param responseTimeValue the 5-bit RespTimeValue (4.096 µs × 2^value)
 * @since 1.1
 */
public record SaCapabilities(int capabilityMask, int capabilityMask2, int responseTimeValue) {
    /** CapabilityMask: UD multicast is supported (IsUDMulticastSupported, OpenSM OSM_CAP_IS_UD_MCAST_SUP). */
    public static final int UD_MULTICAST = 1 << 9;
    /**
     * CapabilityMask2: SendOnlyFullMember joins are supported (OpenSM
     * OSM_CAP2_IS_SEND_ONLY_FULL_MEMBER_SUPPORTED, include/opensm/osm_base.h; Linux
     * IB_SA_CAP_MASK2_SENDONLY_FULL_MEM_SUPPORT).
     */
    public static final int SEND_ONLY_FULL_MEMBER = 1 << 12;

    /** Whether SendOnlyFullMember (JoinState 0x8) joins are supported. */
    public boolean sendOnlyFullMember() {
        return (capabilityMask2 & SEND_ONLY_FULL_MEMBER) != 0;
    }
}
