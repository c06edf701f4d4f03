package ipoib.codec.ip;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import ipoib.codec.DecodeException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.management.ManagementFactory;
import java.util.HexFormat;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * Random and mutated packets for every validator of the package: nothing but
 * {@link DecodeException} comes out; and the data path (write and validate) allocates nothing.
 */
class IpFuzzTest {

    private interface Check {
        void run(MemorySegment s, int length) throws DecodeException;
    }

    private static final Check[] CHECKS = {
        (s, l) -> Ipv4Header.validate(s, 0, l),
        (s, l) -> {
            int h = Ipv4Header.validate(s, 0, l);
            IcmpEcho.validateIpv4(s, h, Ipv4Header.totalLength(s, 0) - h);
        },
        (s, l) -> {
            int h = Ipv4Header.validate(s, 0, l);
            Udp.validateIpv4(s, 0, h, Ipv4Header.totalLength(s, 0) - h);
        },
        (s, l) -> Ipv6Header.validate(s, 0, l),
        (s, l) -> IcmpEcho.validateIpv6(s, 0, Ipv6Header.validate(s, 0, l)),
        (s, l) -> Udp.validateIpv6(s, 0, Ipv6Header.validate(s, 0, l)),
    };

    private static byte[] valid(Random rnd, boolean ipv6, boolean udp) {
        int data = rnd.nextInt(40);
        if (ipv6) {
            MemorySegment s = MemorySegment.ofArray(new byte[40 + 8 + data]);
            Ipv6Header.write(s, 0, 8 + data, udp ? 17 : 58, 64, rnd.nextLong(), rnd.nextLong(), rnd.nextLong(), rnd.nextLong());
            if (udp) {
                Udp.writeIpv6(s, 0, rnd.nextInt(65536), rnd.nextInt(65536), data);
            } else {
                IcmpEcho.writeIpv6(s, 0, 128, rnd.nextInt(65536), rnd.nextInt(65536), data);
            }
            return s.toArray(ValueLayout.JAVA_BYTE);
        }
        MemorySegment s = MemorySegment.ofArray(new byte[20 + 8 + data]);
        Ipv4Header.write(s, 0, 0, 28 + data, rnd.nextInt(65536), true, 64, udp ? 17 : 1, rnd.nextInt(), rnd.nextInt());
        if (udp) {
            Udp.writeIpv4(s, 0, 20, rnd.nextInt(65536), rnd.nextInt(65536), data);
        } else {
            IcmpEcho.writeIpv4(s, 20, 8, rnd.nextInt(65536), rnd.nextInt(65536), data);
        }
        return s.toArray(ValueLayout.JAVA_BYTE);
    }

    @Test
    void onlyDecodeExceptionComesOut() {
        Random rnd = new Random(0x4011_b861L);
        for (int round = 0; round < 30_000; round++) {
            byte[] input;
            if (round % 3 == 0) {
                input = new byte[rnd.nextInt(80)];
                rnd.nextBytes(input);
                if (input.length > 0) {
                    input[0] = (byte) (rnd.nextBoolean() ? 0x45 : 0x60);
                }
            } else {
                input = valid(rnd, rnd.nextBoolean(), rnd.nextBoolean());
                int mutations = 1 + rnd.nextInt(3);
                for (int m = 0; m < mutations; m++) {
                    input[rnd.nextInt(input.length)] ^= (byte) (1 << rnd.nextInt(8));
                }
                if (rnd.nextInt(4) == 0) {
                    input = java.util.Arrays.copyOf(input, rnd.nextInt(input.length + 1));
                }
            }
            MemorySegment s = MemorySegment.ofArray(input);
            for (Check check : CHECKS) {
                try {
                    check.run(s, input.length);
                } catch (DecodeException expected) {
                    // fine
                } catch (RuntimeException e) {
                    fail("validator threw " + e + " for " + HexFormat.of().formatHex(input), e);
                }
            }
        }
    }

    @Test
    void dataPathDoesNotAllocate() throws DecodeException {
        var threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        MemorySegment s = MemorySegment.ofArray(new byte[2048]);
        long sink = 0;
        for (int i = 0; i < 100_000; i++) {
            sink += round(s, i);
        }
        long before = threads.getCurrentThreadAllocatedBytes();
        for (int i = 0; i < 20_000; i++) {
            sink += round(s, i);
        }
        long allocated = threads.getCurrentThreadAllocatedBytes() - before;
        assertTrue(allocated < 16L * 20_000 / 100, allocated + " octets allocated (" + sink + ")");
    }

    private static long round(MemorySegment s, int i) throws DecodeException {
        Ipv4Header.write(s, 0, 0, 20 + 8 + 64, i & 0xFFFF, true, 64, 17, 0x0A000001, 0x0A000002);
        Udp.writeIpv4(s, 0, 20, 5000, 7000, 64);
        int h = Ipv4Header.validate(s, 0, 92);
        long r = Udp.validateIpv4(s, 0, h, 72);
        Ipv6Header.write(s, 100, 8 + 64, 58, 64, 1, i, 2, i);
        IcmpEcho.writeIpv6(s, 100, 128, 1, i & 0xFFFF, 64);
        IcmpEcho.validateIpv6(s, 100, Ipv6Header.validate(s, 100, 112));
        return r + IcmpEcho.sequence(s, 140);
    }
}
