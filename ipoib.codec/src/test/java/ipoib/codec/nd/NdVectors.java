package ipoib.codec.nd;

/**
 * Hand-assembled ND packets over IPoIB (RFC 4861 §4 formats, RFC 4391 §9.3 link-layer option:
 * type, length 3, two zero octets, the 20-octet address of Figure 5). The checksums were
 * computed when writing these tests with a separate Python one's-complement sum over the
 * pseudo-header, not by the code under test; {@link ReferenceChecksum} re-checks them.
 */
final class NdVectors {
    private NdVectors() {}

    /** NS from fe80::202:c903:0:1 to ff02::1:ff00:2 for fe80::202:c903:0:2, SLLA QPN 0x48 GID fe80::2:c903:0:1. */
    static final String NS = """
            60 00 00 00 00 30 3a ff fe 80 00 00 00 00 00 00
            02 02 c9 03 00 00 00 01 ff 02 00 00 00 00 00 00
            00 00 00 01 ff 00 00 02 87 00 1e ab 00 00 00 00
            fe 80 00 00 00 00 00 00 02 02 c9 03 00 00 00 02
            01 03 00 00 00 00 00 48 fe 80 00 00 00 00 00 00
            00 02 c9 03 00 00 00 01""";

    /** NA answering {@link #NS}: S and O set, TLLA with flags octet 0x80, QPN 0x49, GID fe80::2:c903:0:2. */
    static final String NA = """
            60 00 00 00 00 30 3a ff fe 80 00 00 00 00 00 00
            02 02 c9 03 00 00 00 02 fe 80 00 00 00 00 00 00
            02 02 c9 03 00 00 00 01 88 00 71 26 60 00 00 00
            fe 80 00 00 00 00 00 00 02 02 c9 03 00 00 00 02
            02 03 00 00 80 00 00 49 fe 80 00 00 00 00 00 00
            00 02 c9 03 00 00 00 02""";

    /**
     * RA from fe80::1 to ff02::1: cur hop limit 64, O set, router lifetime 1800 s, reachable
     * 30000 ms, retrans 1000 ms; SLLA QPN 0x4a; MTU 2044; prefix 2001:db8:0:1::/64 with L and A,
     * valid 2592000 s, preferred 604800 s.
     */
    static final String RA = """
            60 00 00 00 00 50 3a ff fe 80 00 00 00 00 00 00
            00 00 00 00 00 00 00 01 ff 02 00 00 00 00 00 00
            00 00 00 00 00 00 00 01 86 00 ac 8b 40 40 07 08
            00 00 75 30 00 00 03 e8 01 03 00 00 00 00 00 4a
            fe 80 00 00 00 00 00 00 00 02 c9 03 00 00 00 03
            05 01 00 00 00 00 07 fc 03 04 40 c0 00 27 8d 00
            00 09 3a 80 00 00 00 00 20 01 0d b8 00 00 00 01
            00 00 00 00 00 00 00 00""";

    /** RS from fe80::202:c903:0:1 to ff02::2 with SLLA QPN 0x48. */
    static final String RS = """
            60 00 00 00 00 20 3a ff fe 80 00 00 00 00 00 00
            02 02 c9 03 00 00 00 01 ff 02 00 00 00 00 00 00
            00 00 00 00 00 00 00 02 85 00 e9 45 00 00 00 00
            01 03 00 00 00 00 00 48 fe 80 00 00 00 00 00 00
            00 02 c9 03 00 00 00 01""";

    /** Redirect from fe80::1 to fe80::202:c903:0:1: 2001:db8::99 via fe80::202:c903:0:7, TLLA QPN 0x50. */
    static final String REDIRECT = """
            60 00 00 00 00 40 3a ff fe 80 00 00 00 00 00 00
            00 00 00 00 00 00 00 01 fe 80 00 00 00 00 00 00
            02 02 c9 03 00 00 00 01 89 00 ec ba 00 00 00 00
            fe 80 00 00 00 00 00 00 02 02 c9 03 00 00 00 07
            20 01 0d b8 00 00 00 00 00 00 00 00 00 00 00 99
            02 03 00 00 00 00 00 50 fe 80 00 00 00 00 00 00
            00 02 c9 03 00 00 00 07""";
}
