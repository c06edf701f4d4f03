package ipoib.neighbour;

import ipoib.api.resolve.AddressBits;
import ipoib.runtime.Counters;
import ipoib.runtime.InterfaceCounters;
import ipoib.runtime.Reporter;
import java.net.InetAddress;
import java.util.Objects;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.LongSupplier;

/**
 * What every part of one {@link NeighbourEngine} shares: the address family, the protocol and
 * reporter it serves, the knobs, the clock, the control executor and the counters.
 */
final class EngineContext {
    final boolean ipv6;
    final String family;
    final Protocol protocol;
    final Reporter reporter;
    final Counters all;
    final InterfaceCounters perInterface;
    final EngineCounters counters;
    private final Executor control;
    private final LongSupplier clock;
    volatile Settings settings;
    volatile boolean closed;

    EngineContext(boolean ipv6, Protocol protocol, Settings settings, Reporter reporter, InterfaceCounters counters,
                  Executor control, LongSupplier clock) {
        this.ipv6 = ipv6;
        this.family = ipv6 ? "IPv6" : "IPv4";
        this.protocol = Objects.requireNonNull(protocol);
        this.settings = Objects.requireNonNull(settings);
        this.reporter = Objects.requireNonNull(reporter);
        this.all = counters.total();
        this.perInterface = counters;
        this.counters = new EngineCounters(counters);
        this.control = control;
        this.clock = clock;
    }

    long now() {
        return clock.getAsLong();
    }

    /** The clock as the runtime's, for its rate limiters. */
    ipoib.runtime.Clock runtimeClock() {
        return clock::getAsLong;
    }

    InetAddress address(long high, long low) {
        return AddressBits.address(ipv6, high, low);
    }

    /** Runs a task on the control executor; nothing once the engine is closed or stopping. */
    void execute(Runnable task) {
        if (closed) {
            return;
        }
        try {
            control.execute(task);
        } catch (RejectedExecutionException stopping) {
            // The component is going away; its tables go with it.
        }
    }
}
