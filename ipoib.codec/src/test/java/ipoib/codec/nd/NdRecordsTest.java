package ipoib.codec.nd;

import static ipoib.codec.nd.NdCodecTest.ip;
import static ipoib.codec.nd.NdCodecTest.lla;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

/** The record constructors refuse what the decoder would reject, so every encodable message decodes. */
class NdRecordsTest {

    @Test
    void neighborSolicitationRules() {
        assertThrows(IllegalArgumentException.class, () -> new NeighborSolicitation(ip("fe80::1"), ip("ff02::1:ff00:2"),
                ip("ff02::1"), Optional.empty()));
        assertThrows(IllegalArgumentException.class, () -> new NeighborSolicitation(ip("::"), ip("ff02::1"),
                ip("fe80::2"), Optional.empty()));
        assertThrows(IllegalArgumentException.class, () -> new NeighborSolicitation(ip("::"), ip("ff02::1:ff00:2"),
                ip("fe80::2"), Optional.of(lla(0, 1, "fe80::1"))));
        assertThrows(IllegalArgumentException.class, () -> new NeighborSolicitation(ip("fe80::1"), ip("ff02::1:ff00:2"),
                ip("fe80::2"), null));
        assertThrows(IllegalArgumentException.class, () -> new NeighborSolicitation(null, ip("ff02::1:ff00:2"),
                ip("fe80::2"), Optional.empty()));
    }

    @Test
    void neighborAdvertisementRules() {
        assertThrows(IllegalArgumentException.class, () -> new NeighborAdvertisement(ip("fe80::1"), ip("ff02::1"),
                false, true, false, ip("fe80::1"), Optional.empty()));
        assertThrows(IllegalArgumentException.class, () -> new NeighborAdvertisement(ip("fe80::1"), ip("fe80::2"),
                false, true, false, ip("ff02::1"), Optional.empty()));
    }

    @Test
    void routerMessageRules() {
        assertThrows(IllegalArgumentException.class, () -> new RouterSolicitation(ip("::"), ip("ff02::2"),
                Optional.of(lla(0, 1, "fe80::1"))));
        assertThrows(IllegalArgumentException.class, () -> new RouterAdvertisement(ip("2001:db8::1"), ip("ff02::1"), 0,
                false, false, 0, 0, 0, Optional.empty(), OptionalLong.empty(), List.of()));
        assertThrows(IllegalArgumentException.class, () -> new RouterAdvertisement(ip("fe80::1"), ip("ff02::1"), 256,
                false, false, 0, 0, 0, Optional.empty(), OptionalLong.empty(), List.of()));
        assertThrows(IllegalArgumentException.class, () -> new RouterAdvertisement(ip("fe80::1"), ip("ff02::1"), 0,
                false, false, 0x10000, 0, 0, Optional.empty(), OptionalLong.empty(), List.of()));
        assertThrows(IllegalArgumentException.class, () -> new RouterAdvertisement(ip("fe80::1"), ip("ff02::1"), 0,
                false, false, 0, 0x1_0000_0000L, 0, Optional.empty(), OptionalLong.empty(), List.of()));
        assertThrows(IllegalArgumentException.class, () -> new RouterAdvertisement(ip("fe80::1"), ip("ff02::1"), 0,
                false, false, 0, 0, 0, Optional.empty(), OptionalLong.of(-1), List.of()));
        assertThrows(IllegalArgumentException.class, () -> new PrefixInformation(129, true, true, 0, 0, ip("2001:db8::")));
        assertThrows(IllegalArgumentException.class, () -> new PrefixInformation(64, true, true, -1, 0, ip("2001:db8::")));
    }

    @Test
    void redirectRules() {
        assertThrows(IllegalArgumentException.class, () -> new Redirect(ip("2001:db8::1"), ip("fe80::2"), ip("fe80::3"),
                ip("2001:db8::9"), Optional.empty()));
        assertThrows(IllegalArgumentException.class, () -> new Redirect(ip("fe80::1"), ip("fe80::2"), ip("fe80::3"),
                ip("ff0e::9"), Optional.empty()));
        assertThrows(IllegalArgumentException.class, () -> new Redirect(ip("fe80::1"), ip("fe80::2"), ip("2001:db8::3"),
                ip("2001:db8::9"), Optional.empty()));
    }

    @Test
    void encoderNeedsRoom() {
        int length = NdCodec.encodedLength(NdCodecTest.NS);
        assertThrows(IndexOutOfBoundsException.class,
                () -> NdCodec.encode(ipoib.codec.ipoib.Hex.filled(length - 1), 0, NdCodecTest.NS));
        assertThrows(IndexOutOfBoundsException.class,
                () -> NdCodec.encode(ipoib.codec.ipoib.Hex.filled(length), 1, NdCodecTest.NS));
    }
}
