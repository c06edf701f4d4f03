package ipoib.bench;

import ipoib.api.Gid;
import ipoib.api.LinkAddress;
import ipoib.api.Qpn;
import ipoib.api.link.EtherType;
import ipoib.codec.DecodeException;
import ipoib.codec.arp.ArpCodec;
import ipoib.codec.arp.ArpPacket;
import ipoib.codec.iba.UdPacket;
import ipoib.codec.ipoib.EncapsulationHeader;
import ipoib.codec.nd.NdCodec;
import ipoib.codec.nd.NdMessage;
import ipoib.codec.nd.NeighborSolicitation;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/** Encode and decode cost of the wire formats on the data and control paths, in ns/op. */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class CodecBenchmark {
    private final MemorySegment buffer = Arena.ofAuto().allocate(8192);
    private final MemorySegment payload = Arena.ofAuto().allocate(64);
    private final UdPacket packet = new UdPacket();
    private final UdPacket decoded = new UdPacket();
    private ArpPacket reply;
    private NdMessage solicitation;
    private int udLength;

    @Setup
    public void setUp() throws Exception {
        LinkAddress self = LinkAddress.of(Qpn.of(0x48), Gid.parse("fe80::2:c903:0:101"));
        LinkAddress peer = LinkAddress.of(Qpn.of(0x9b0), Gid.parse("fe80::2:c903:0:201"));
        ArpPacket request = ArpPacket.request(peer, 0x0a000002, 0x0a000001);
        reply = ArpPacket.replyTo(request, self);
        solicitation = NeighborSolicitation.resolve((Inet6Address) InetAddress.getByName("fe80::2:c903:0:101"),
                (Inet6Address) InetAddress.getByName("fe80::2:c903:0:201"), self);
        packet.lrh().destinationLid(3).sourceLid(2).serviceLevel(0);
        packet.bth().partitionKey(0xffff).destinationQp(0x9b0);
        packet.deth().queueKey(0x0b1b).sourceQp(0x48);
        udLength = packet.encode(buffer, 4096, payload, 0, 64);
    }

    @Benchmark
    public int encapsulationHeaderEncodeDecode() throws DecodeException {
        EncapsulationHeader.write(buffer, 0, EtherType.IPV4);
        return EncapsulationHeader.etherType(buffer, 0);
    }

    @Benchmark
    public int arpReplyEncode() {
        return ArpCodec.encode(buffer, 0, reply);
    }

    @Benchmark
    public ArpPacket arpReplyDecode() throws DecodeException {
        ArpCodec.encode(buffer, 0, reply);
        return ArpCodec.decode(buffer, 0);
    }

    @Benchmark
    public int neighborSolicitationEncode() {
        return NdCodec.encode(buffer, 0, solicitation);
    }

    @Benchmark
    public NdMessage neighborSolicitationDecode() throws DecodeException {
        int length = NdCodec.encode(buffer, 0, solicitation);
        return NdCodec.decode(buffer, 0, length);
    }

    /** A 64-octet UD packet with LRH, BTH, DETH, ICRC and VCRC. */
    @Benchmark
    public int ibaPacketEncode() {
        return packet.encode(buffer, 4096, payload, 0, 64);
    }

    /** Decoding checks VCRC, headers and ICRC. */
    @Benchmark
    public int ibaPacketDecodeAndVerify() throws DecodeException {
        return decoded.decode(buffer, 4096, udLength).payloadLength();
    }
}
