package ipoib.bench;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Pins a benchmark thread to one CPU with Linux's {@code sched_setaffinity(2)} (pid 0: the
 * calling thread), so that the sending and the receiving thread of a pair run on CPUs 0 and 1
 * in every run, for the stack and for its SPSC baseline alike. Unpinned, the scheduler sometimes
 * put both on one CPU of these two-CPU machines for a whole trial (a mode that halved the
 * stack's rate and the ring's, at random). The environment variable {@code IPOIB_BENCH_PIN=false}
 * turns it off (an environment variable, since JMH runs each benchmark in a JVM of its own, which
 * inherits it); where the call fails (not Linux, fewer than two CPUs) the threads run unpinned and
 * a line says so.
 */
final class CpuAffinity {
    /** The sending (producing) thread's CPU. */
    static final int SENDER = 0;
    /** The receiving (consuming) thread's CPU. */
    static final int RECEIVER = 1;
    private static final boolean ENABLED = !"false".equalsIgnoreCase(System.getenv("IPOIB_BENCH_PIN"))
            && Runtime.getRuntime().availableProcessors() >= 2;
    /** cpu_set_t of glibc: 1024 bits. */
    private static final int CPU_SET_BYTES = 128;
    private static final AtomicBoolean WARNED = new AtomicBoolean();
    private static final MethodHandle SCHED_SETAFFINITY = ENABLED ? lookUp() : null;

    private CpuAffinity() {}

    private static MethodHandle lookUp() {
        Linker linker = Linker.nativeLinker();
        return linker.defaultLookup().find("sched_setaffinity")
                .map(f -> linker.downcallHandle(f, FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT,
                        ValueLayout.JAVA_LONG, ValueLayout.ADDRESS)))
                .orElse(null);
    }

    /** Pins the calling thread to {@code cpu}; false when it stays unpinned. */
    static boolean pin(int cpu) {
        if (SCHED_SETAFFINITY == null) {
            warn(ENABLED ? "sched_setaffinity not found" : "turned off or fewer than two CPUs");
            return false;
        }
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment set = arena.allocate(CPU_SET_BYTES);
            set.set(ValueLayout.JAVA_BYTE, cpu / 8, (byte) (1 << (cpu % 8)));
            int result = (int) SCHED_SETAFFINITY.invokeExact(0, (long) CPU_SET_BYTES, set);
            if (result != 0) {
                warn("sched_setaffinity(CPU " + cpu + ") returned " + result);
                return false;
            }
            return true;
        } catch (Throwable e) {
            warn("sched_setaffinity failed: " + e);
            return false;
        }
    }

    private static void warn(String why) {
        if (WARNED.compareAndSet(false, true)) {
            System.err.println("ipoib bench: threads not pinned to CPUs (" + why + ")");
        }
    }
}
