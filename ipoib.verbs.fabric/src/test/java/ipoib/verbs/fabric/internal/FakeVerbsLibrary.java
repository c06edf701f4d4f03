package ipoib.verbs.fabric.internal;

import static org.junit.jupiter.api.Assertions.fail;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * A C stand-in of src/test/c compiled into a shared library for a test class, with downcalls to
 * its test hooks. Needs gcc and the rdma-core headers (libibverbs-dev, libibumad-dev).
 */
// Restricted methods (native calls) are this code's purpose; the JVM runs with --enable-native-access.
@SuppressWarnings("restricted")
final class FakeVerbsLibrary {
    final String path;
    private final SymbolLookup lookup;

    private FakeVerbsLibrary(String path, SymbolLookup lookup) {
        this.path = path;
        this.lookup = lookup;
    }

    /** Compiles src/test/c/{@code source} into {@code dir}. */
    static FakeVerbsLibrary build(Path dir, String source) throws Exception {
        Path c = Path.of("src/test/c", source).toAbsolutePath();
        Path so = dir.resolve("lib" + source.replace(".c", "") + ".so");
        // -Bsymbolic: the fake's own calls stay inside it even if the real library is loaded.
        Process gcc = new ProcessBuilder("gcc", "-Wall", "-Wno-unused-parameter", "-shared", "-fPIC",
                "-Wl,-Bsymbolic", "-o", so.toString(), c.toString()).redirectErrorStream(true).start();
        String out = new String(gcc.getInputStream().readAllBytes());
        if (!gcc.waitFor(60, TimeUnit.SECONDS) || gcc.exitValue() != 0) {
            fail("gcc could not build " + source + " (needs gcc, libibverbs-dev and libibumad-dev):\n" + out);
        }
        return new FakeVerbsLibrary(so.toString(), SymbolLookup.libraryLookup(so, Arena.global()));
    }

    MethodHandle hook(String name, FunctionDescriptor descriptor) {
        return Linker.nativeLinker().downcallHandle(lookup.find(name).orElseThrow(), descriptor);
    }

    /** Polls until {@code want} completions arrived (or 5 s passed); they are copied into {@code wc}. */
    static int pollUntil(ipoib.api.verbs.CompletionQueue cq, ipoib.api.verbs.WorkCompletions wc, int want) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        ipoib.api.verbs.WorkCompletions batch = new ipoib.api.verbs.WorkCompletions(16);
        int total = 0;
        wc.clear();
        while (total < want && System.nanoTime() < deadline) {
            int n = cq.poll(batch);
            for (int i = 0; i < n; i++) {
                wc.add(batch.workRequestId(i), batch.status(i), batch.opcode(i), batch.byteLength(i),
                        batch.queuePairNumber(i), batch.sourceQpn(i), batch.sourceLid(i), batch.serviceLevel(i),
                        batch.pkeyIndex(i), batch.grhPresent(i));
            }
            total += n;
        }
        return total;
    }

    /**
     * The bytes the calling thread allocates running {@code round} a second time: the first run
     * warms the JIT (the interpreter allocates). Prints both figures under {@code what}.
     */
    static long allocatedWhenWarm(String what, Runnable round) {
        com.sun.management.ThreadMXBean threads =
                (com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory.getThreadMXBean();
        long thread = Thread.currentThread().threadId();
        long before = threads.getThreadAllocatedBytes(thread);
        round.run();
        long warm = threads.getThreadAllocatedBytes(thread) - before;
        before = threads.getThreadAllocatedBytes(thread);
        round.run();
        long measured = threads.getThreadAllocatedBytes(thread) - before;
        System.out.println(what + " allocated " + warm + " bytes warming up, " + measured + " bytes warm");
        return measured;
    }

    /** A hook returning a C string, read as text. */
    String text(String name) throws Throwable {
        MemorySegment s = (MemorySegment) hook(name, FunctionDescriptor.of(ValueLayout.ADDRESS)).invokeExact();
        return s.reinterpret(8192).getString(0);
    }
}
