package ipoib.verbs.loopback.fabric;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;

/**
 * Gives the core to another runnable OS thread, from a platform or a virtual thread alike.
 *
 * <p>{@link Thread#yield()} on a virtual thread only lets the other virtual threads of its
 * carrier run: with none waiting it freezes and thaws the thread's stack and goes on, while the
 * OS thread the waiter hopes for (a sender on a platform thread, e.g. the TUN devices' poller)
 * keeps waiting for the core. So a virtual thread calls {@code sched_yield(2)} itself (its carrier
 * stays pinned for that call alone); a platform thread's {@link Thread#yield()} is that call.
 */
final class CoreYield {
    private static final MethodHandle SCHED_YIELD = lookUp();

    private CoreYield() {}

    private static MethodHandle lookUp() {
        Linker linker = Linker.nativeLinker();
        return linker.defaultLookup().find("sched_yield")
                .map(address -> linker.downcallHandle(address, FunctionDescriptor.of(ValueLayout.JAVA_INT)))
                .orElse(null);
    }

    /** Gives the core to another runnable OS thread, if any. */
    static void yieldCore() {
        if (SCHED_YIELD == null || !Thread.currentThread().isVirtual()) {
            Thread.yield();
            return;
        }
        try {
            int ignored = (int) SCHED_YIELD.invokeExact();
        } catch (Throwable t) {
            throw new IllegalStateException("sched_yield failed", t);
        }
    }
}
