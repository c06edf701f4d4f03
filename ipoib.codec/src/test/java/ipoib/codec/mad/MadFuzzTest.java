package ipoib.codec.mad;

import ipoib.codec.iba.DecoderFuzz;
import java.lang.foreign.MemorySegment;
import java.util.List;
import java.util.function.Supplier;
import net.jqwik.api.Arbitrary;
import org.junit.jupiter.api.Test;

/** Random and mutated input for every decoder and API conversion of the package. */
class MadFuzzTest {
    private static final int RANDOM = 1_500;
    private static final int MUTATED = 1_500;

    private interface Encoder<T> {
        void encode(T value, MemorySegment segment, long offset);
    }

    private static <T> Supplier<List<byte[]>> seeds(Arbitrary<T> arbitrary, int length, Encoder<T> encoder) {
        return () -> arbitrary.sampleStream().limit(30).map(v -> {
            byte[] bytes = new byte[length];
            encoder.encode(v, MemorySegment.ofArray(bytes), 0);
            return bytes;
        }).toList();
    }

    @Test
    void headers() {
        Supplier<List<byte[]>> mads = () -> MadArbitraries.madHeaders().sampleStream().limit(30).map(h -> {
            byte[] bytes = new byte[SaMad.LENGTH];
            new SaMad(new MadHeader(1, 3, 2, h.method(), h.status(), h.classSpecific(), h.transactionId(),
                    h.attributeId(), h.attributeModifier()), RmppHeader.NONE, new SaHeader(0, 0, 0))
                    .encode(MemorySegment.ofArray(bytes), 0);
            return bytes;
        }).toList();
        DecoderFuzz.run("MAD header", 11, RANDOM, 40, MUTATED, mads, (s, o, l) -> MadHeader.decode(s, o));
        DecoderFuzz.run("RMPP header", 12, RANDOM, 20, MUTATED, mads, (s, o, l) -> RmppHeader.decode(s, o + 24));
        DecoderFuzz.run("SA header", 13, RANDOM, 30, MUTATED, mads, (s, o, l) -> SaHeader.decode(s, o + 36));
        DecoderFuzz.run("SA MAD", 14, RANDOM, 300, MUTATED, mads, (s, o, l) -> SaMad.decode(s, o));
    }

    @Test
    void attributes() {
        DecoderFuzz.run("PathRecord", 21, RANDOM, 80, MUTATED,
                seeds(MadArbitraries.pathRecords(), SaPathRecord.LENGTH, SaPathRecord::encode),
                (s, o, l) -> SaPathRecord.decode(s, o).toApi());
        DecoderFuzz.run("MCMemberRecord", 22, RANDOM, 70, MUTATED,
                seeds(MadArbitraries.memberRecords(), SaMcMemberRecord.LENGTH, SaMcMemberRecord::encode),
                (s, o, l) -> SaMcMemberRecord.decode(s, o).toApi());
        DecoderFuzz.run("InformInfo", 23, RANDOM, 50, MUTATED,
                seeds(MadArbitraries.informInfos(), InformInfo.LENGTH, InformInfo::encode),
                (s, o, l) -> InformInfo.decode(s, o));
        DecoderFuzz.run("Notice", 24, RANDOM, 100, MUTATED,
                seeds(MadArbitraries.notices(), Notice.LENGTH, Notice::encode),
                (s, o, l) -> Notice.decode(s, o).toGroupTrap());
    }
}
