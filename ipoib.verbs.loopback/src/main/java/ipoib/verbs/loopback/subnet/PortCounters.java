package ipoib.verbs.loopback.subnet;

import java.util.concurrent.atomic.AtomicLongArray;

/**
 * One port's performance counters: the data path counts into them without allocating or locking,
 * the performance agent reads and clears them. Values are 64-bit; the agent saturates them to the
 * width of the attribute it reports (IBA 16.1.3.5: counters stop at their maximum).
 */
public final class PortCounters {
    private final AtomicLongArray values = new AtomicLongArray(PortCounter.values().length);

    /** A packet of this many octets (LRH to VCRC, as PortXmitData counts) left through the port. */
    public void transmitted(int octets, boolean multicast) {
        values.getAndAdd(PortCounter.XMIT_DATA_OCTETS.ordinal(), octets);
        values.getAndIncrement(PortCounter.XMIT_PACKETS.ordinal());
        values.getAndIncrement((multicast ? PortCounter.MULTICAST_XMIT_PACKETS : PortCounter.UNICAST_XMIT_PACKETS)
                .ordinal());
    }

    /** A packet of this many octets arrived through the port. */
    public void received(int octets, boolean multicast) {
        values.getAndAdd(PortCounter.RCV_DATA_OCTETS.ordinal(), octets);
        values.getAndIncrement(PortCounter.RCV_PACKETS.ordinal());
        values.getAndIncrement((multicast ? PortCounter.MULTICAST_RCV_PACKETS : PortCounter.UNICAST_RCV_PACKETS)
                .ordinal());
    }

    /** A run of {@code packets} packets of {@code octets} octets in all left through the port (a post list, counted once). */
    public void transmitted(long octets, int packets, boolean multicast) {
        values.getAndAdd(PortCounter.XMIT_DATA_OCTETS.ordinal(), octets);
        values.getAndAdd(PortCounter.XMIT_PACKETS.ordinal(), packets);
        values.getAndAdd((multicast ? PortCounter.MULTICAST_XMIT_PACKETS : PortCounter.UNICAST_XMIT_PACKETS)
                .ordinal(), packets);
    }

    /** A run of {@code packets} packets of {@code octets} octets in all arrived through the port. */
    public void received(long octets, int packets, boolean multicast) {
        values.getAndAdd(PortCounter.RCV_DATA_OCTETS.ordinal(), octets);
        values.getAndAdd(PortCounter.RCV_PACKETS.ordinal(), packets);
        values.getAndAdd((multicast ? PortCounter.MULTICAST_RCV_PACKETS : PortCounter.UNICAST_RCV_PACKETS)
                .ordinal(), packets);
    }

    /** A packet was dropped at this port for this reason. */
    public void discarded(PortDiscard reason) {
        values.getAndIncrement(reason.summary().ordinal());
        if (reason.detail() != null) {
            values.getAndIncrement(reason.detail().ordinal());
        }
    }

    /** Adds one to a counter (link downed, VL15 dropped, ...). */
    public void increment(PortCounter counter) {
        values.getAndIncrement(counter.ordinal());
    }

    /** The counter's value. */
    public long get(PortCounter counter) {
        return values.get(counter.ordinal());
    }

    /** Sets the counter to zero (PortCounters Set with its CounterSelect bit). */
    public void clear(PortCounter counter) {
        values.set(counter.ordinal(), 0);
    }
}
