package ipoib.verbs.fabric.opensm;

import ipoib.api.Gid;
import ipoib.api.IbMtu;
import ipoib.api.JoinState;
import ipoib.api.Lid;
import ipoib.api.McMemberRecord;
import ipoib.api.Mgid;
import ipoib.api.PKey;
import ipoib.api.PathRecord;
import ipoib.api.QKey;
import ipoib.api.Rate;
import ipoib.api.sa.GroupTrap;
import ipoib.codec.DecodeException;
import ipoib.codec.mad.SaAttribute;
import java.util.HexFormat;

/**
 * The text form of SA records exchanged with a forked host (one line, space-separated fields),
 * so that the test JVM can drive SubnetAdministrator calls made in another process.
 */
final class SaWire {
    private SaWire() {}

    static String member(McMemberRecord r) {
        return String.join(" ", r.mgid().toString(), r.portGid().toString(), hex(r.qkey().value()),
                hex(r.mlid().value()), Integer.toString(r.mtu().bytes()), Integer.toString(r.trafficClass()),
                hex(r.pkey().value()), Integer.toString(r.rate().code()), Integer.toString(r.packetLifetime()),
                Integer.toString(r.serviceLevel()), Integer.toString(r.flowLabel()), Integer.toString(r.hopLimit()),
                Integer.toString(r.joinState().bit()), r.proxyJoin() ? "1" : "0");
    }

    static McMemberRecord member(String[] f, int at) {
        return new McMemberRecord(Mgid.parse(f[at]), Gid.parse(f[at + 1]), QKey.of((int) Long.parseLong(f[at + 2], 16)),
                new Lid(Integer.parseInt(f[at + 3], 16)), IbMtu.fromBytes(Integer.parseInt(f[at + 4])),
                Integer.parseInt(f[at + 5]), new PKey(Integer.parseInt(f[at + 6], 16)),
                Rate.fromCode(Integer.parseInt(f[at + 7])), Integer.parseInt(f[at + 8]), Integer.parseInt(f[at + 9]),
                Integer.parseInt(f[at + 10]), Integer.parseInt(f[at + 11]),
                JoinState.fromBit(Integer.parseInt(f[at + 12])), f[at + 13].equals("1"));
    }

    static final int MEMBER_FIELDS = 14;

    static String path(PathRecord p) {
        return String.join(" ", p.destinationGid().toString(), p.sourceGid().toString(),
                hex(p.destinationLid().value()), hex(p.sourceLid().value()), Integer.toString(p.flowLabel()),
                hex(p.pkey().value()), Integer.toString(p.serviceLevel()), Integer.toString(p.mtu().bytes()),
                Integer.toString(p.rate().code()), Integer.toString(p.packetLifetime()),
                Integer.toString(p.hopLimit()), Integer.toString(p.trafficClass()));
    }

    static PathRecord path(String[] f, int at) {
        return new PathRecord(Gid.parse(f[at]), Gid.parse(f[at + 1]), new Lid(Integer.parseInt(f[at + 2], 16)),
                new Lid(Integer.parseInt(f[at + 3], 16)), Integer.parseInt(f[at + 4]),
                new PKey(Integer.parseInt(f[at + 5], 16)), Integer.parseInt(f[at + 6]),
                IbMtu.fromBytes(Integer.parseInt(f[at + 7])), Rate.fromCode(Integer.parseInt(f[at + 8])),
                Integer.parseInt(f[at + 9]), Integer.parseInt(f[at + 10]), Integer.parseInt(f[at + 11]));
    }

    static String trap(GroupTrap t) {
        return t.type().name() + " " + t.mgid() + " " + t.reporterGid();
    }

    static GroupTrap trap(String[] f, int at) {
        return new GroupTrap(GroupTrap.Type.valueOf(f[at]), Mgid.parse(f[at + 1]), Gid.parse(f[at + 2]));
    }

    /** A record of any SA attribute as its wire octets in hex, every field kept. */
    static <R> String raw(SaAttribute<R> attribute, R record) {
        return HexFormat.of().formatHex(attribute.toBytes(record));
    }

    static <R> R raw(SaAttribute<R> attribute, String hex) {
        try {
            return attribute.fromBytes(HexFormat.of().parseHex(hex));
        } catch (DecodeException e) {
            throw new IllegalArgumentException(attribute.name() + " " + hex + ": " + e.getMessage(), e);
        }
    }

    static String hex(int v) {
        return Integer.toHexString(v);
    }
}
