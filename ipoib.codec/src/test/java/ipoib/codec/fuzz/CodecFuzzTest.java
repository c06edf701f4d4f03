package ipoib.codec.fuzz;

import com.code_intelligence.jazzer.junit.FuzzTest;

/**
 * Coverage-guided fuzz tests (Jazzer) of every public decoder (the SA client's receive path is
 * fuzzed in ipoib.sa, {@code SaClientFuzzTest}). Under {@code ./ipoib test} each runs its regression corpus (the committed inputs in
 * {@code src/test/resources/ipoib/codec/fuzz/CodecFuzzTestInputs/<method>/}: seeds and every
 * past finding) in seconds; {@code ./ipoib fuzz [minutes] [target]} fuzzes one of them (by
 * default {@link #all}, which reaches every target) with {@code JAZZER_FUZZ=1}.
 */
class CodecFuzzTest {
    /** The first octet chooses the target, the rest is its input: one run covers every decoder. */
    @FuzzTest
    void all(byte[] input) {
        if (input.length == 0) {
            return;
        }
        byte[] rest = java.util.Arrays.copyOfRange(input, 1, input.length);
        switch ((input[0] & 0xFF) % 10) {
            case 0 -> Targets.arp(rest);
            case 1 -> Targets.ip(rest);
            case 2 -> Targets.nd(rest);
            case 3 -> Targets.ibaPacket(rest);
            case 4 -> Targets.ipoibReceive(rest);
            case 5 -> Targets.linkAddress(rest);
            case 6 -> Targets.mad(rest);
            case 7 -> Targets.capture(rest);
            case 8 -> Targets.mad(rest); // MADs twice as often: the SA client takes them in ipoib.sa
            default -> Targets.cm(rest);
        }
    }

    @FuzzTest
    void arp(byte[] input) {
        Targets.arp(input);
    }

    @FuzzTest
    void ip(byte[] input) {
        Targets.ip(input);
    }

    @FuzzTest
    void nd(byte[] input) {
        Targets.nd(input);
    }

    @FuzzTest
    void ibaPacket(byte[] input) {
        Targets.ibaPacket(input);
    }

    @FuzzTest
    void ipoibReceive(byte[] input) {
        Targets.ipoibReceive(input);
    }

    @FuzzTest
    void linkAddress(byte[] input) {
        Targets.linkAddress(input);
    }

    @FuzzTest
    void mad(byte[] input) {
        Targets.mad(input);
    }

    @FuzzTest
    void capture(byte[] input) {
        Targets.capture(input);
    }

    @FuzzTest
    void cm(byte[] input) {
        Targets.cm(input);
    }
}
