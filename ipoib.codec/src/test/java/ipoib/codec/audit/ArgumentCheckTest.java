package ipoib.codec.audit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ipoib.codec.DecodeException;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Every public static codec method that takes a segment and offsets or lengths (the decoders,
 * checksums, CRCs, encoders into a caller's buffer) checks them: an offset or length outside the
 * segment fails with the codec's documented exception and a message naming what was wrong:
 * {@link DecodeException} (received bytes), {@link IllegalArgumentException} (a value that does
 * not fit), or {@link IndexOutOfBoundsException} naming what needs how many octets at which
 * offset of how large a segment (a caller's buffer); never the segment's own bounds error, whose
 * message names none of these, nor any other runtime exception.
 *
 * <p>Excluded: {@code Wire}'s raw accessors ({@code u8}, {@code put16}, ...), documented to throw
 * {@link IndexOutOfBoundsException}: decoders check with {@code Wire.require} before using them.
 */
class ArgumentCheckTest {
    /** Offsets and lengths around the edges of the 64-octet segment, and far outside it. */
    /** The codec's own bounds message (Wire.check and the writers): what, octets, offset, size. */
    private static final java.util.regex.Pattern CLEAR_BOUNDS = java.util.regex.Pattern.compile(
            "^\\S.* needs -?\\d+ octets at offset -?\\d+ of a \\d+-octet (segment|buffer)"
                    + "|^\\S.* needs offset -?\\d+ and \\S+ offset -?\\d+ to be 0 or more");
    private static final long[] EDGES = {-1, 0, 1, 4, 40, 63, 64, 65, 1000, Integer.MAX_VALUE, Integer.MIN_VALUE};

    @Test
    void outOfRangeOffsetsAndLengthsFailWithTheDocumentedException() throws Exception {
        List<Method> methods = entryPoints();
        assertTrue(methods.size() > 40, "found only " + methods.size() + " entry points: " + methods);
        // One example per method, and how many of its calls failed.
        java.util.Map<String, String> failures = new java.util.TreeMap<>();
        java.util.Map<String, Integer> counts = new java.util.TreeMap<>();
        int calls = 0;
        for (Method m : methods) {
            Class<?>[] types = m.getParameterTypes();
            for (int slot = 0; slot < types.length; slot++) {
                if (!numeric(types[slot])) {
                    continue;
                }
                for (long edge : EDGES) {
                    for (int size : new int[] {0, 64}) {
                        calls++;
                        String failure = call(m, slot, edge, size);
                        if (failure != null) {
                            String key = m.getDeclaringClass().getSimpleName() + "." + m.getName();
                            failures.putIfAbsent(key, failure);
                            counts.merge(key, 1, Integer::sum);
                        }
                    }
                }
            }
        }
        assertTrue(calls > 500, "only " + calls + " calls");
        StringBuilder report = new StringBuilder();
        failures.forEach((k, v) -> report.append(counts.get(k)).append(" calls of ").append(k).append(", e.g. ")
                .append(v).append('\n'));
        assertTrue(failures.isEmpty(), failures.size() + " methods failed with the wrong exception:\n" + report);
    }

    /** The failure of one call, or null when it returned or threw what it may. */
    private static String call(Method m, int slot, long edge, int size) throws IllegalAccessException {
        Class<?>[] types = m.getParameterTypes();
        Object[] args = new Object[types.length];
        try (Arena arena = Arena.ofConfined()) {
            for (int i = 0; i < types.length; i++) {
                if (types[i] == MemorySegment.class) {
                    MemorySegment s = arena.allocate(Math.max(size, 1)).asSlice(0, size);
                    s.fill((byte) 0x45); // an IPv4 version nibble, non-zero lengths: decoders read on
                    args[i] = s;
                } else {
                    args[i] = value(types[i], i == slot ? edge : 0);
                }
            }
            try {
                m.invoke(null, args);
                return null;
            } catch (InvocationTargetException e) {
                Throwable t = e.getCause();
                String where = m.getDeclaringClass().getSimpleName() + "." + m.getName() + describe(args) + ": ";
                if (t instanceof DecodeException || t instanceof IllegalArgumentException) {
                    return t.getMessage() == null || t.getMessage().isBlank() ? where + "no message" : null;
                }
                if (t instanceof IndexOutOfBoundsException && t.getMessage() != null
                        && CLEAR_BOUNDS.matcher(t.getMessage()).find()) {
                    return null;
                }
                return where + t;
            }
        }
    }

    private static String describe(Object[] args) {
        List<String> out = new ArrayList<>();
        for (Object a : args) {
            out.add(a instanceof MemorySegment s ? "segment[" + s.byteSize() + "]" : String.valueOf(a));
        }
        return "(" + String.join(", ", out) + ")";
    }

    private static boolean numeric(Class<?> t) {
        return t == int.class || t == long.class;
    }

    private static Object value(Class<?> t, long v) {
        if (t == int.class) {
            return (int) v;
        }
        if (t == long.class) {
            return v;
        }
        if (t == short.class) {
            return (short) v;
        }
        if (t == byte.class) {
            return (byte) v;
        }
        if (t == boolean.class) {
            return v != 0;
        }
        throw new IllegalArgumentException(t.toString());
    }

    /** Public static methods of the codec's exported classes that take a segment and only primitives besides. */
    static List<Method> entryPoints() throws IOException, URISyntaxException, ClassNotFoundException {
        Path root = Path.of(DecodeException.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        List<Method> out = new ArrayList<>();
        try (Stream<Path> files = Files.walk(root)) {
            for (Path p : files.filter(f -> f.toString().endsWith(".class")).sorted().toList()) {
                String name = root.relativize(p).toString().replace('/', '.').replaceAll("\\.class$", "");
                if (name.contains("$") || name.endsWith("package-info") || name.contains(".internal.")) {
                    continue;
                }
                Class<?> c = Class.forName(name, false, ArgumentCheckTest.class.getClassLoader());
                if (!Modifier.isPublic(c.getModifiers()) || c == ipoib.codec.Wire.class) {
                    continue;
                }
                for (Method m : c.getDeclaredMethods()) {
                    if (Modifier.isPublic(m.getModifiers()) && Modifier.isStatic(m.getModifiers()) && takesSegment(m)) {
                        out.add(m);
                    }
                }
            }
        }
        return out;
    }

    private static boolean takesSegment(Method m) {
        boolean segment = false;
        for (Class<?> t : m.getParameterTypes()) {
            if (t == MemorySegment.class) {
                segment = true;
            } else if (!t.isPrimitive()) {
                return false;
            }
        }
        return segment;
    }

    @Test
    void theAuditSeesTheMethodsOfTheIssue() throws Exception {
        List<String> names = entryPoints().stream().map(m -> m.getDeclaringClass().getSimpleName() + "." + m.getName())
                .toList();
        for (String expected : new String[] {"Icrc.verify", "Vcrc.verify", "Icmpv6Checksum.isValid"}) {
            assertTrue(names.contains(expected), expected + " not among " + names);
        }
        assertFalse(names.contains("Wire.u8"));
    }

    @Test
    void icrcVerifyOutsideTheSegmentIsADecodeException() {
        MemorySegment packet = MemorySegment.ofArray(new byte[40]);
        DecodeException e = assertThrows(DecodeException.class, () -> ipoib.codec.iba.Icrc.verify(packet, 0, 38));
        assertEquals("ICRC", e.field());
        assertTrue(e.getMessage().contains("truncated: needs 42 octets, 40 available"), e.getMessage());
        assertThrows(DecodeException.class, () -> ipoib.codec.iba.Icrc.verify(packet, -1, 24));
        assertThrows(DecodeException.class, () -> ipoib.codec.iba.Icrc.verify(packet, 0, -5));
    }

    @Test
    void vcrcVerifyOutsideTheSegmentIsADecodeException() {
        MemorySegment packet = MemorySegment.ofArray(new byte[30]);
        DecodeException e = assertThrows(DecodeException.class, () -> ipoib.codec.iba.Vcrc.verify(packet, 0, 29));
        assertEquals("VCRC", e.field());
        assertTrue(e.getMessage().contains("truncated: needs 31 octets, 30 available"), e.getMessage());
        assertThrows(DecodeException.class, () -> ipoib.codec.iba.Vcrc.verify(packet, 31, 0));
        assertThrows(DecodeException.class, () -> ipoib.codec.iba.Vcrc.verify(packet, 0, -1));
    }

    @Test
    void icmpv6IsValidOutsideTheSegmentIsADecodeException() {
        MemorySegment packet = MemorySegment.ofArray(new byte[48]);
        DecodeException e = assertThrows(DecodeException.class,
                () -> ipoib.codec.nd.Icmpv6Checksum.isValid(packet, 0, 24));
        assertTrue(e.getMessage().contains("ICMPv6 message") && e.getMessage().contains("needs 64 octets, 48 available"),
                e.getMessage());
        assertThrows(DecodeException.class, () -> ipoib.codec.nd.Icmpv6Checksum.isValid(packet, -8, 8));
        DecodeException shortMessage = assertThrows(DecodeException.class,
                () -> ipoib.codec.nd.Icmpv6Checksum.isValid(packet, 0, 3));
        assertTrue(shortMessage.getMessage().contains("at least 4 octets, got 3"), shortMessage.getMessage());
    }

    /** An encoder of a record or header view into a caller's buffer, with its length. */
    private record Encoder(String name, int length, java.util.function.BiConsumer<MemorySegment, Long> encode) {}

    private static List<Encoder> encoders() {
        ipoib.api.Gid gid = ipoib.api.Gid.parse("fe80::2:c903:0:1");
        ipoib.api.Mgid mgid = ipoib.api.Mgid.parse("ff12:401b:ffff::e000:1");
        var notice = ipoib.codec.mad.Notice.forGroupTrap(ipoib.api.sa.GroupTrap.Type.CREATED, mgid, 1, gid);
        var member = ipoib.codec.mad.SaMcMemberRecord.join(mgid, gid, ipoib.api.JoinState.FULL_MEMBER);
        var path = ipoib.codec.mad.SaPathRecord.query(gid, gid, 0xffff);
        var inform = ipoib.codec.mad.InformInfo.forGroupTrap(ipoib.api.sa.GroupTrap.Type.CREATED, mgid, true, 1);
        var mad = ipoib.codec.mad.SaMad.request(ipoib.codec.mad.MadMethod.GET, 1,
                ipoib.codec.mad.SaPathRecord.ATTRIBUTE_ID, 0, 0);
        var erf = new ipoib.codec.pcap.ErfHeader(0, ipoib.codec.pcap.ErfHeader.TYPE_INFINIBAND, 0, 24, 0, 8);
        return List.of(
                new Encoder("Notice", ipoib.codec.mad.Notice.LENGTH, notice::encode),
                new Encoder("MCMemberRecord", ipoib.codec.mad.SaMcMemberRecord.LENGTH, member::encode),
                new Encoder("PathRecord", ipoib.codec.mad.SaPathRecord.LENGTH, path::encode),
                new Encoder("InformInfo", ipoib.codec.mad.InformInfo.LENGTH, inform::encode),
                new Encoder("SA MAD", ipoib.codec.mad.SaMad.LENGTH, mad::encode),
                new Encoder("MAD header", ipoib.codec.mad.MadHeader.LENGTH, mad.header()::encode),
                new Encoder("RMPP header", ipoib.codec.mad.RmppHeader.LENGTH, mad.rmpp()::encode),
                new Encoder("SA header", ipoib.codec.mad.SaHeader.LENGTH, mad.sa()::encode),
                new Encoder("LRH", ipoib.codec.iba.Lrh.LENGTH, new ipoib.codec.iba.Lrh()::encode),
                new Encoder("GRH", ipoib.codec.iba.Grh.LENGTH, new ipoib.codec.iba.Grh()::encode),
                new Encoder("BTH", ipoib.codec.iba.Bth.LENGTH, new ipoib.codec.iba.Bth()::encode),
                new Encoder("DETH", ipoib.codec.iba.Deth.LENGTH, new ipoib.codec.iba.Deth()::encode),
                new Encoder("ERF header", ipoib.codec.pcap.ErfHeader.LENGTH, erf::encode));
    }

    @Test
    void encodersIntoAShortBufferFailClearlyAndWriteNothing() {
        for (Encoder e : encoders()) {
            for (long[] shape : new long[][] {{e.length() - 1, 0}, {e.length(), 1}, {e.length() + 8, -1},
                    {e.length(), Long.MAX_VALUE}}) {
                MemorySegment buffer = MemorySegment.ofArray(new byte[(int) shape[0]]);
                buffer.fill((byte) 0x5A);
                IndexOutOfBoundsException x = assertThrows(IndexOutOfBoundsException.class,
                        () -> e.encode().accept(buffer, shape[1]), e.name() + " at " + shape[1]);
                assertTrue(CLEAR_BOUNDS.matcher(x.getMessage()).find() && x.getMessage().startsWith(e.name()),
                        e.name() + ": " + x.getMessage());
                for (long i = 0; i < buffer.byteSize(); i++) {
                    assertEquals((byte) 0x5A, buffer.get(java.lang.foreign.ValueLayout.JAVA_BYTE, i),
                            e.name() + " wrote octet " + i + " before failing");
                }
            }
            MemorySegment fits = MemorySegment.ofArray(new byte[e.length() + 2]);
            e.encode().accept(fits, 2L);
        }
    }
}
