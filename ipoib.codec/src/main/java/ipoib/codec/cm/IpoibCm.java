package ipoib.codec.cm;

import ipoib.codec.DecodeException;
import ipoib.codec.Fields;
import java.nio.ByteBuffer;

/**
 * What IPoIB connected mode puts into CM messages, as the Linux driver does (RFC 4755 §6 names the
 * same elements):
 * <ul>
 * <li>the service ID of an interface is {@code 0x1000000000000000 | its UD QPN}
 * (drivers/infiniband/ulp/ipoib/ipoib_cm.c:61, {@code IPOIB_CM_IETF_ID}; the passive side listens
 * on it in {@code ipoib_cm_dev_open}, the active side connects to the peer's QPN from its
 * link-layer address in {@code ipoib_cm_send_req});</li>
 * <li>REQ and REP carry 8 octets of private data, {@code struct ipoib_cm_data}
 * (drivers/infiniband/ulp/ipoib/ipoib.h): the sender's UD QPN and its receive MTU, both 32-bit
 * big-endian; the QPN's high octet is ignored on receive.</li>
 * </ul>
 */
public final class IpoibCm {
    private IpoibCm() {}

    /** The high bits of every IPoIB-CM service ID (ipoib_cm.c, IPOIB_CM_IETF_ID). */
    public static final long SERVICE_ID_BASE = 0x1000000000000000L;
    /** Octets of {@code struct ipoib_cm_data}. */
    public static final int DATA_LENGTH = 8;

    /** The service ID an interface with UD QPN {@code qpn} listens on. */
    public static long serviceId(int qpn) {
        Fields.bits("CM IPoIB UD QPN", qpn, 24);
        return SERVICE_ID_BASE | qpn;
    }

    /** Whether a REQ's service ID is IPoIB-CM's, and then the QPN it names is {@code serviceId & 0xffffff}. */
    public static boolean isIpoibService(long serviceId) {
        return (serviceId & ~0xFFFFFFL) == SERVICE_ID_BASE;
    }

    /** The private data of a REQ or REP: the sender's UD QPN and receive MTU. */
    public static CmPrivateData privateData(int udQpn, int receiveMtu) {
        Fields.bits("CM IPoIB UD QPN", udQpn, 24);
        if (receiveMtu < 0) {
            throw new IllegalArgumentException("IPoIB-CM receive MTU " + Integer.toUnsignedString(receiveMtu)
                    + " is negative as an int (allowed 0..2147483647)");
        }
        return CmPrivateData.of(ByteBuffer.allocate(DATA_LENGTH).putInt(udQpn).putInt(receiveMtu).array());
    }

    /** The UD QPN in a REQ's or REP's private data (the high octet ignored, as Linux masks it). */
    public static int udQpn(CmPrivateData data) throws DecodeException {
        return ByteBuffer.wrap(require(data)).getInt(0) & 0xFFFFFF;
    }

    /** The receive MTU in a REQ's or REP's private data. */
    public static int receiveMtu(CmPrivateData data) throws DecodeException {
        return ByteBuffer.wrap(require(data)).getInt(4);
    }

    private static byte[] require(CmPrivateData data) throws DecodeException {
        if (data.length() < DATA_LENGTH) {
            throw new DecodeException("IPoIB-CM private data", 0,
                    "truncated: needs " + DATA_LENGTH + " octets (QPN, MTU), " + data.length() + " available");
        }
        return data.toBytes();
    }
}
