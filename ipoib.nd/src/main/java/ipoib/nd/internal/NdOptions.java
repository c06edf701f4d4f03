package ipoib.nd.internal;

/**
 * The ND-specific knobs (the neighbour table's are {@link ipoib.neighbour.Settings}).
 *
 * @param lidIdentifier the interface identifier from the port LID instead of the GUID (RFC 4391 §8)
 * @param linkLocal whether each interface gets its fe80::/64 address
 * @param dadTransmits DupAddrDetectTransmits (RFC 4862 §5.1), 0: no DAD
 * @param routerSolicitations MAX_RTR_SOLICITATIONS (RFC 4861 §10: 3)
 * @param routerSolicitationIntervalMillis RTR_SOLICITATION_INTERVAL (RFC 4861 §10: 4 s)
 * @param autoconf whether Router Advertisement prefixes form addresses (RFC 4862 §5.5.3)
 */
public record NdOptions(boolean lidIdentifier, boolean linkLocal, int dadTransmits, int routerSolicitations,
                        long routerSolicitationIntervalMillis, boolean autoconf) {

    /** The defaults of {@link NdConfiguration}: GUID identifier, link-local on, one DAD probe, 3 RS 4 s apart, SLAAC on. */
    public static final NdOptions DEFAULTS = new NdOptions(false, true, 1, 3, 4_000, true);

    static NdOptions of(NdConfiguration c) {
        return new NdOptions(
                "lid".equals(c.interfaceIdentifier().strip()),
                c.linkLocal(),
                c.dadTransmits(),
                c.routerSolicitations(),
                c.routerSolicitationIntervalMillis(),
                c.autoconf());
    }
}
