package ipoib.console.internal;

import ipoib.api.listing.ListingSource;
import java.util.List;
import java.util.Map;

/**
 * The IPoIB page's tables of the shell's listings (connected mode, paths, netdev bridges): drawn
 * from the listing's {@code --json} object and redrawn by live.js from the same object, which the
 * page serves at {@code <page>/<listing>.json}.
 */
final class ListingTables {

    /** A listing the page shows: its name, the bundle that offers it, and its tables. */
    record Listing(String name, String bundle, List<Part> parts) {
        String absent() {
            return "no " + name + " listing: bundle " + bundle + " is not running";
        }
    }

    /** One table of a listing: its heading, id, records ({@link Table#of}), columns and empty text. */
    record Part(String heading, String id, String key, List<Table.Column> columns, String empty) {}

    static final List<Listing> LISTINGS = List.of(
            new Listing("cm", "ipoib.link", List.of(
                    new Part("Connected mode", "ipoib-cm", "cm", Table.columns("name", "Interface", "mode", "Mode",
                            "serviceId", "Service ID", "established", "Established", "rejected", "Rejected",
                            "failures", "Failures", "reaped", "Reaped", "sentOverUdWhileFailed", "Sent over UD while failed",
                            "icmpTooBig", "ICMP too big", "portCm", "Port CM"), "no interfaces"),
                    new Part("Connections", "ipoib-cm-connections", "cm/connections", Table.columns("name", "Interface",
                            "direction", "Direction", "state", "State", "peerQpn", "Peer QPN", "peerLid", "Peer LID",
                            "peerGid", "Peer GID", "localRcQpn", "Local RC QPN", "remoteRcQpn", "Remote RC QPN",
                            "mtu", "MTU", "idleSeconds", "Idle s", "txPackets", "TX packets", "txBytes", "TX bytes",
                            "rxPackets", "RX packets", "rxBytes", "RX bytes", "errors", "Errors", "why", "Why"),
                            "no connections"))),
            new Listing("paths", "ipoib.link", List.of(
                    new Part("Paths", "ipoib-paths", "paths/paths", Table.columns("name", "Interface",
                            "destinationGid", "Destination GID", "lid", "LID", "serviceLevel", "SL", "mtu", "MTU",
                            "rate", "Rate"), "no paths cached"),
                    new Part("Path cache counters", "ipoib-path-counters", "paths", Table.columns("name", "Interface",
                            "state", "State", "counters", "Counters"), "no interfaces"))),
            new Listing("netdev", "ipoib.netdev", List.of(
                    new Part("Netdev bridges", "ipoib-netdev", "devices", Table.columns("interface", "Interface",
                            "device", "Device", "netns", "Namespace", "mtu", "MTU", "up", "Up", "offload", "Offload",
                            "addresses", "Addresses", "groups", "Groups", "counters", "Counters", "error", "Error"),
                            "no bridged interfaces (ipoib:netdev add)"),
                    new Part("Parked devices", "ipoib-netdev-parked", "parked", Table.columns("interface", "Interface",
                            "device", "Device", "netns", "Namespace"), "no parked devices"))));

    private ListingTables() {}

    /** Each listing's tables; those of a listing nobody offers say so and are not redrawn. */
    static void html(StringBuilder out, String pageRoot, Map<String, ListingSource> sources) {
        for (Listing listing : LISTINGS) {
            ListingSource source = sources.get(listing.name());
            Map<String, Object> object = source == null ? Map.of() : source.listing();
            for (Part part : listing.parts()) {
                Html.heading(out, part.heading());
                Table.of(part.id(), part.key(), part.columns(), object, source == null ? listing.absent() : part.empty(),
                        source == null ? null : pageRoot + "/" + listing.name() + ".json").html(out);
            }
        }
    }
}
