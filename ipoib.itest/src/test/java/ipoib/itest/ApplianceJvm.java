package ipoib.itest;

import java.util.List;

/**
 * The JVM options an appliance forked by a test starts with. Such an appliance lives for seconds:
 * C2 compiles made for a long run would take about half of its CPU and never pay back, so it runs
 * on C1 alone, and the serial collector starts no GC threads. The machines running the tests have
 * few cores, so what a fork costs is mostly CPU.
 */
public final class ApplianceJvm {
    private ApplianceJvm() {}

    /** What {@code ./ipoib} passes to every JVM it starts. */
    public static final List<String> REQUIRED = List.of("--enable-native-access=ALL-UNNAMED",
            "--sun-misc-unsafe-memory-access=allow");

    /** A short-lived test fork's choice of compiler and collector. */
    public static final List<String> SHORT_LIVED = List.of("-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC");

    /** Everything before the launch properties: {@link #REQUIRED} and {@link #SHORT_LIVED}. */
    public static List<String> options() {
        return java.util.stream.Stream.concat(REQUIRED.stream(), SHORT_LIVED.stream()).toList();
    }
}
