// Writes the seed inputs of CodecFuzzTest's regression corpus: one valid input of each format,
// built with the codec's encoders (checksums and CRCs right, so that the fuzzer starts past
// them), plus the two UD packets of KnownPackets (assembled outside the code base, read by
// tshark). Run from ipoib.codec after a build:
//   jshell --class-path target/classes:<ipoib.api jar> src/test/fuzz/seeds.jsh
import ipoib.api.*;
import ipoib.api.sa.GroupTrap;
import ipoib.codec.arp.*;
import ipoib.codec.ip.*;
import ipoib.codec.mad.*;
import ipoib.codec.pcap.*;
import ipoib.codec.ipoib.*;
import ipoib.codec.cm.*;
import java.lang.foreign.MemorySegment;
import java.nio.file.*;
import java.util.*;

Path root = Path.of("src/test/resources/ipoib/codec/fuzz/CodecFuzzTestInputs");
List<String> targets = List.of("arp", "ip", "nd", "ibaPacket", "ipoibReceive", "linkAddress", "mad", "capture", "saClient", "cm");
// The SA client's target lives in ipoib.sa (SaClientFuzzTest), outside the codec's 'all' target;
// its index 8 in the list stays, so that the 'all' corpus keeps its meaning.
Path saRoot = Path.of("../ipoib.sa/src/test/resources/ipoib/sa/fuzz/SaClientFuzzTestInputs");
void seed(String target, String name, byte[] bytes) throws Exception {
    if (target.equals("saClient")) {
        Files.createDirectories(saRoot.resolve(target));
        Files.write(saRoot.resolve(target).resolve("seed-" + name), bytes);
        return;
    }
    Files.createDirectories(root.resolve(target));
    Files.write(root.resolve(target).resolve("seed-" + name), bytes);
    byte[] all = new byte[bytes.length + 1];
    all[0] = (byte) targets.indexOf(target);
    System.arraycopy(bytes, 0, all, 1, bytes.length);
    Files.createDirectories(root.resolve("all"));
    Files.write(root.resolve("all").resolve("seed-" + target + "-" + name), all);
}
byte[] hex(String s) { return HexFormat.of().parseHex(s.replaceAll("\\s", "")); }

LinkAddress a = new LinkAddress(0, new Qpn(0x48), Gid.parse("fe80::2:c903:0:1"));
LinkAddress b = new LinkAddress(0, new Qpn(0x49), Gid.parse("fe80::2:c903:0:2"));
byte[] arp = new byte[ArpCodec.LENGTH];
ArpCodec.encode(MemorySegment.ofArray(arp), 0, new ArpPacket(ArpOperation.REQUEST, a, 0x0A000001, b, 0x0A000002));
seed("arp", "request", arp);

byte[] v4 = new byte[20 + 8 + 6];
MemorySegment s4 = MemorySegment.ofArray(v4);
Ipv4Header.write(s4, 0, 0, v4.length, 1, false, 64, Ipv4Header.PROTOCOL_UDP, 0x0A000001, 0x0A000002);
Udp.writeIpv4(s4, 0, 20, 9999, 9999, 6);
seed("ip", "ipv4-udp", v4);
byte[] e4 = new byte[20 + 8 + 4];
MemorySegment se4 = MemorySegment.ofArray(e4);
Ipv4Header.write(se4, 0, 0, e4.length, 2, false, 64, Ipv4Header.PROTOCOL_ICMP, 0x0A000001, 0x0A000002);
IcmpEcho.writeIpv4(se4, 20, IcmpEcho.TYPE_ECHO_REQUEST, 7, 1, 4);
seed("ip", "ipv4-echo", e4);
byte[] v6 = new byte[40 + 8 + 6];
MemorySegment s6 = MemorySegment.ofArray(v6);
Ipv6Header.write(s6, 0, 14, Ipv6Header.NEXT_HEADER_UDP, 64, 0xfd00_0000_0000_0000L, 1, 0xfd00_0000_0000_0000L, 2);
Udp.writeIpv6(s6, 0, 9999, 9999, 6);
seed("ip", "ipv6-udp", v6);
byte[] e6 = new byte[40 + 8 + 3];
MemorySegment se6 = MemorySegment.ofArray(e6);
Ipv6Header.write(se6, 0, 11, Ipv6Header.NEXT_HEADER_ICMPV6, 64, 0xfe80_0000_0000_0000L, 0x0202_c903_0000_0101L,
        0xfe80_0000_0000_0000L, 0x0202_c903_0000_0201L);
IcmpEcho.writeIpv6(se6, 0, IcmpEcho.TYPE_V6_ECHO_REQUEST, 1, 2, 3);
seed("ip", "ipv6-echo", e6);

// The ND messages of NdVectors (checksums from an independent one's-complement sum).
seed("nd", "ns", hex("6000000000303afffe800000000000000202c90300000001ff0200000000000000000001ff00000287001eab00000000fe800000000000000202c903000000020103000000000048fe800000000000000002c90300000001"));
seed("nd", "na", hex("6000000000303afffe800000000000000202c90300000002fe800000000000000202c903000000018800712660000000fe800000000000000202c903000000020203000080000049fe800000000000000002c90300000002"));
seed("nd", "ra", hex("6000000000503afffe800000000000000000000000000001ff0200000000000000000000000000018600ac8b4040070800007530000003e8010300000000004afe800000000000000002c9030000000305010000000007fc030440c000278d0000093a800000000020010db8000000010000000000000000"));
seed("nd", "rs", hex("6000000000203afffe800000000000000202c90300000001ff0200000000000000000000000000028500e945000000000103000000000048fe800000000000000002c90300000001"));
seed("nd", "redirect", hex("6000000000403afffe800000000000000000000000000001fe800000000000000202c903000000018900ecba00000000fe800000000000000202c9030000000720010db80000000000000000000000990203000000000050fe800000000000000002c90300000007"));

// KnownPackets: a local and a global UD packet with right ICRC and VCRC (tshark reads them).
byte[] local = hex("30520012000b003464e080010012345680abcdef80010000000000010800000049506f49422100009f049e1026e2");
byte[] global = hex("0003c001001400346123456700201b40fe800000000000000002c90300000001ff12401bffff00000000"
        + "0000ffffffff6410ffff00ffffff0000000000000b1b0000004808060000415250006f558bf89b18");
seed("ibaPacket", "local", local);
seed("ibaPacket", "global", global);

// A UD receive buffer: 40-octet GRH area (GRH present), encapsulation header 0x0800, an IPv4 packet.
byte[] rx = new byte[40 + 4 + v4.length];
MemorySegment srx = MemorySegment.ofArray(rx);
System.arraycopy(global, 8, rx, 0, 40);
rx[0] |= 1;
EncapsulationHeader.write(srx, 40, 0x0800);
System.arraycopy(v4, 0, rx, 44, v4.length);
seed("ipoibReceive", "ipv4", rx);

byte[] lla = new byte[20];
LinkAddressCodec.write(MemorySegment.ofArray(lla), 0, a);
seed("linkAddress", "unicast", lla);
byte[] mcast = new byte[20];
LinkAddressCodec.writeMulticast(MemorySegment.ofArray(mcast), 0, Mgid.parse("ff12:401b:ffff::ffff:ffff"));
seed("linkAddress", "broadcast", mcast);
byte[] mgid = new byte[20];
System.arraycopy(mcast, 4, mgid, 0, 16);
seed("linkAddress", "mgid", mgid);

// MADs: a PathRecord answer, an MCMemberRecord answer, a report of trap 66 (GID in service).
byte[] path = new byte[256];
MemorySegment spath = MemorySegment.ofArray(path);
SaMad.request(MadMethod.GET, 1, SaPathRecord.ATTRIBUTE_ID, 0, 0).response(0).encode(spath, 0);
SaPathRecord.query(a.gid(), b.gid(), 0xffff).encode(spath, SaMad.DATA_OFFSET);
seed("mad", "path-record", path);
byte[] member = new byte[256];
MemorySegment smember = MemorySegment.ofArray(member);
SaMad.request(MadMethod.SET, 2, SaMcMemberRecord.ATTRIBUTE_ID, 0, 0).response(0).encode(smember, 0);
SaMcMemberRecord.join(Mgid.parse("ff12:401b:ffff::ffff:ffff"), a.gid(), JoinState.FULL_MEMBER).encode(smember, SaMad.DATA_OFFSET);
seed("mad", "mc-member-record", member);
byte[] report = new byte[256];
MemorySegment sreport = MemorySegment.ofArray(report);
SaMad.request(MadMethod.REPORT, 3, Notice.ATTRIBUTE_ID, 0, 0).encode(sreport, 0);
Notice.forGroupTrap(GroupTrap.Type.CREATED, Mgid.parse("ff12:401b:ffff::e000:1"), 1, a.gid()).encode(sreport, SaMad.DATA_OFFSET);
seed("mad", "report", report);
// For the SA client: the last TID octet of each MAD picks the pending request whose TID it
// takes (0 PathRecord, 1 join; 7 none: the report keeps its own).
byte[] answers = new byte[256 * 3];
System.arraycopy(path, 0, answers, 0, 256);
answers[15] = 0;
System.arraycopy(member, 0, answers, 256, 256);
answers[256 + 15] = 1;
System.arraycopy(report, 0, answers, 512, 256);
answers[512 + 15] = 7;
seed("saClient", "answers-and-report", answers);

// A pcapng capture with an ERF and an IPoIB interface, one packet each.
var sink = new java.io.ByteArrayOutputStream();
try (PcapngWriter writer = PcapngWriter.to(sink)) {
    writer.addInterface(LinkType.ERF, 0, TimestampResolution.NANOSECONDS, "wire");
    writer.addInterface(LinkType.IPOIB, 0, TimestampResolution.MICROSECONDS, "ib0");
    writer.writePacket(0, 1_000_000_000L, MemorySegment.ofArray(local), 0, local.length);
    writer.writePacket(1, 2_000_000_000L, MemorySegment.ofArray(rx), 0, rx.length);
}
seed("capture", "pcapng", sink.toByteArray());
byte[] erf = new byte[ErfHeader.LENGTH + local.length];
ErfHeader erfHeader = new ErfHeader(ErfHeader.timestampOf(123_456_789L), ErfHeader.TYPE_INFINIBAND, 0, erf.length, 0, local.length);
erfHeader.encode(MemorySegment.ofArray(erf), 0);
System.arraycopy(local, 0, erf, ErfHeader.LENGTH, local.length);
seed("capture", "erf", erf);
// CM MADs of one IPoIB-CM connection, with the values of Linux's ipoib_cm_send_req/rep (CmMessages).
Gid active = Gid.parse("fe80::2:c903:0:1");
Gid passive = Gid.parse("fe80::2:c903:0:2");
CmPath primary = new CmPath(0x0012, 0x0034, active, passive, 0x12345, 3, 0x20, 0xff, 5, true, 18);
CmReq req = new CmReq(0x1234abcd, IpoibCm.serviceId(0x49), 0x0002c90300000001L, 0, 0xa1, 4, 0, 0, 0, 20, CmReq.RC, false, 0x00abcdef, 20, 0, 0xffff, 4, false, 0, 15, true, 0, primary, null, false, IpoibCm.privateData(0x48, 65524));
CmRep rep = new CmRep(0x0badf00d, 0x1234abcd, 0, 0xb7, 0, 0x00123456, 0, 4, 15, 0, false, 0, true, 0x0002c90300000002L, IpoibCm.privateData(0x49, 65524));
Map<String, CmMessage> cms = new LinkedHashMap<>();
cms.put("req", req);
cms.put("rep", rep);
cms.put("rtu", new CmRtu(0x1234abcd, 0x0badf00d, CmPrivateData.empty()));
cms.put("dreq", new CmDreq(0x1234abcd, 0x0badf00d, 0xb7, CmPrivateData.empty()));
cms.put("drep", new CmDrep(0x0badf00d, 0x1234abcd, CmPrivateData.empty()));
cms.put("rej", new CmRej(0x0badf00d, 0x1234abcd, CmRej.REJECTED_REQ, CmRej.INVALID_SERVICE_ID, new byte[0], CmPrivateData.of((byte) 1, (byte) 2)));
cms.put("mra", new CmMra(0x0badf00d, 0x1234abcd, 0, 21, CmPrivateData.empty()));
for (var e : cms.entrySet()) {
    byte[] cmMad = new byte[CmMad.LENGTH];
    new CmMad(0x42, e.getValue()).encode(MemorySegment.ofArray(cmMad), 0);
    seed("cm", e.getKey(), cmMad);
}
/exit
