package ipoib.codec.iba;

import java.util.HexFormat;

/**
 * Two UD packets assembled outside this code base (Python struct from the IBA layouts, ICRC by
 * zlib's CRC-32 over the masked octets, VCRC by a bit-serial CRC-16 of polynomial 0x100B) and
 * decoded by tshark 4.0, whose readings are quoted next to each constant.
 */
final class KnownPackets {
    private KnownPackets() {}

    /**
     * Local: VL 3, SL 5, LNH 2, DLID 18, PktLen 11, SLID 52; BTH opcode 100 (UD SEND Only), SE 1,
     * M 1, PadCnt 2, P_Key 32769, DestQP 0x123456, A 1, PSN 11259375; DETH Q_Key 0x80010000,
     * SrcQP 0x000001; payload 0800 0000 "IPoIB!"; ICRC 0x109e049f, VCRC 0xe226.
     */
    static final String LOCAL = "30520012000b003464e080010012345680abcdef80010000000000010800000049506f49422100009f049e1026e2";

    /**
     * Global: VL 0, SL 0, LNH 3, DLID 49153, PktLen 20, SLID 52; GRH TClass 18, FlowLabel 214375,
     * PayLen 32, HopLmt 64, SGID fe80::2:c903:0:1, DGID ff12:401b:ffff::ffff:ffff; BTH opcode 100,
     * PadCnt 1, P_Key 65535, DestQP 0xffffff, PSN 0; DETH Q_Key 0x0b1b, SrcQP 0x48; payload
     * 0806 0000 "ARP"; ICRC 0xf88b556f (tshark shows the octets big-endian: 0x6f558bf8), VCRC 0x189b.
     */
    static final String GLOBAL = "0003c001001400346123456700201b40fe800000000000000002c90300000001ff12401bffff00000000"
            + "0000ffffffff6410ffff00ffffff0000000000000b1b0000004808060000415250006f558bf89b18";

    static byte[] local() {
        return HexFormat.of().parseHex(LOCAL);
    }

    static byte[] global() {
        return HexFormat.of().parseHex(GLOBAL);
    }
}
