package ipoib.itest;

import java.util.List;

/**
 * The JVM options an appliance forked by a test starts with. Such an appliance lives for seconds:
 * C2 compiles made for a long run would take about 40 % of its CPU and never pay back, so it runs
 * on C1 alone, and the serial collector starts no GC threads; the classes come from the shared
 * archive the first fork wrote ({@link SharedClassArchive}). The machines running the tests have
 * few cores, so what a fork costs is mostly CPU. The netdev tests' shared appliance, which carries
 * their traffic, runs so too: its some 200 MB move fast enough on C1.
 */
public final class ApplianceJvm {
    private ApplianceJvm() {}

    /** What {@code ./ipoib} passes to every JVM it starts. */
    public static final List<String> REQUIRED = List.of("--enable-native-access=ALL-UNNAMED",
            "--sun-misc-unsafe-memory-access=allow");

    /** A short-lived test fork's choice of compiler and collector. */
    public static final List<String> SHORT_LIVED = List.of("-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC");

    /** Everything before the launch properties: {@link #REQUIRED}, {@link #SHORT_LIVED} and {@link #sharedClasses}. */
    public static List<String> options() {
        return java.util.stream.Stream.of(REQUIRED, SHORT_LIVED, sharedClasses()).flatMap(List::stream).toList();
    }

    /**
     * {@link #options()}, but without waiting for the shared class archive when it is still to be
     * made ({@link SharedClassArchive#optionsWithoutWaiting()}): for a fork that may start while the
     * archive is made beside it.
     */
    public static List<String> optionsWithoutWaitingForTheArchive() {
        return java.util.stream.Stream.of(REQUIRED, SHORT_LIVED, SharedClassArchive.optionsWithoutWaiting())
                .flatMap(List::stream).toList();
    }

    /**
     * {@link #SHORT_LIVED} and {@link #sharedClasses}: for a fork of the appliance jar under test
     * started by {@code ./ipoib}, which adds {@link #REQUIRED} itself.
     */
    public static List<String> shortLivedShared() {
        return java.util.stream.Stream.of(SHORT_LIVED, sharedClasses()).flatMap(List::stream).toList();
    }

    /**
     * Class data sharing for a fork of the appliance jar under test ({@code appliance.jar}):
     * the classes a training fork loaded from start to exit ({@link SharedClassArchive}).
     */
    public static List<String> sharedClasses() {
        return SharedClassArchive.options();
    }

    /** {@link #options()} for an appliance that runs until the test JVM ends. */
    public static List<String> optionsUntilTheEnd() {
        return options();
    }
}
