package ipoib.codec.iba;

import static org.junit.jupiter.api.Assertions.fail;

import ipoib.codec.DecodeException;
import java.lang.foreign.MemorySegment;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;
import java.util.function.Supplier;

/**
 * Feeds random and mutated octets to a decoder and fails on anything but a normal return or a
 * {@link DecodeException} that names a field. Seeded, so a failure reproduces.
 */
public final class DecoderFuzz {
    private DecoderFuzz() {}

    /** A decoder under test: decodes {@code length} octets of {@code input} at {@code offset}. */
    public interface Decoder {
        void decode(MemorySegment input, long offset, int length) throws DecodeException;
    }

    /**
     * Runs {@code randomInputs} inputs of random octets (lengths up to {@code maxLength}) and
     * {@code mutations} mutated copies of the valid inputs {@code seeds} supplies.
     *
     * @return how many inputs decoded without error
     */
    public static int run(String name, long seed, int randomInputs, int maxLength, int mutations,
                          Supplier<List<byte[]>> seeds, Decoder decoder) {
        Random random = new Random(seed);
        int accepted = 0;
        for (int i = 0; i < randomInputs; i++) {
            byte[] input = new byte[random.nextInt(maxLength + 1)];
            random.nextBytes(input);
            accepted += feed(name, input, random, decoder);
        }
        List<byte[]> valid = seeds.get();
        for (int i = 0; i < mutations; i++) {
            byte[] input = mutate(valid.get(random.nextInt(valid.size())), random);
            accepted += feed(name, input, random, decoder);
        }
        return accepted;
    }

    private static int feed(String name, byte[] input, Random random, Decoder decoder) {
        // mostly the whole input at offset 0; sometimes framed at an offset, or a length beyond the input
        int offset = 0;
        int length = input.length;
        byte[] buffer = input;
        int shape = random.nextInt(10);
        if (shape == 0) {
            offset = 1 + random.nextInt(7);
            buffer = new byte[input.length + offset + random.nextInt(4)];
            System.arraycopy(input, 0, buffer, offset, input.length);
        } else if (shape == 1) {
            length = input.length + 1 + random.nextInt(8);
        }
        try {
            decoder.decode(MemorySegment.ofArray(buffer), offset, length);
            return 1;
        } catch (DecodeException e) {
            if (e.field() == null || e.field().isEmpty() || e.offset() < 0) {
                fail(name + ": DecodeException without field or offset: " + e.getMessage());
            }
            return 0;
        } catch (Throwable t) {
            fail(name + " threw " + t + " for offset " + offset + ", length " + length + ", input "
                    + HexFormat.of().formatHex(buffer), t);
            return 0;
        }
    }

    static byte[] mutate(byte[] original, Random random) {
        byte[] bytes = original.clone();
        int changes = 1 + random.nextInt(4);
        for (int c = 0; c < changes; c++) {
            switch (random.nextInt(6)) {
                case 0, 1 -> { // flip a bit
                    if (bytes.length > 0) {
                        bytes[random.nextInt(bytes.length)] ^= (byte) (1 << random.nextInt(8));
                    }
                }
                case 2 -> { // set an octet to an edge value
                    if (bytes.length > 0) {
                        bytes[random.nextInt(bytes.length)] = (byte) new int[] {0, 0xFF, 0x7F, 0x80, 1}[random.nextInt(5)];
                    }
                }
                case 3 -> bytes = Arrays.copyOf(bytes, random.nextInt(bytes.length + 1)); // truncate
                case 4 -> { // extend with random octets
                    int extra = 1 + random.nextInt(16);
                    int at = bytes.length;
                    bytes = Arrays.copyOf(bytes, at + extra);
                    for (int i = at; i < bytes.length; i++) {
                        bytes[i] = (byte) random.nextInt();
                    }
                }
                default -> { // overwrite a 4-octet run
                    if (bytes.length >= 4) {
                        int at = random.nextInt(bytes.length - 3);
                        for (int i = 0; i < 4; i++) {
                            bytes[at + i] = (byte) random.nextInt();
                        }
                    }
                }
            }
        }
        return bytes;
    }
}
