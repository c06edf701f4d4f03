package ipoib.link.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;

import ipoib.api.verbs.AddressHandle;
import ipoib.api.verbs.AddressVector;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * A retired address handle is destroyed only once no posted send uses it, as Linux's
 * {@code __ipoib_reap_ah} (drivers/infiniband/ulp/ipoib/ipoib_ib.c) frees a dead handle only when
 * {@code tx_tail} has passed its {@code last_send}; destroying it earlier would let the HCA read a
 * freed handle for a send still in the queue.
 */
class HandleReaperTest {

    static final class CountingHandle implements AddressHandle {
        final AtomicInteger closes = new AtomicInteger();

        @Override
        public AddressVector vector() {
            return null;
        }

        @Override
        public void close() {
            closes.incrementAndGet();
        }
    }

    final SendHandles sends = new SendHandles(8);
    final HandleReaper reaper = new HandleReaper();

    @Test
    void aRetiredHandleWaitsForEverySendPostedWithIt() {
        CountingHandle old = new CountingHandle();
        CountingHandle current = new CountingHandle();
        sends.set(2, old);
        sends.set(5, old);
        sends.set(6, current);
        reaper.retire(old);

        assertEquals(1, reaper.reap(sends::inUse), "two sends still use it");
        sends.clear(2);
        assertEquals(1, reaper.reap(sends::inUse), "one send still uses it");
        assertEquals(0, old.closes.get());
        sends.clear(5);
        assertEquals(0, reaper.reap(sends::inUse));
        assertEquals(1, old.closes.get(), "destroyed once its last send completed");
        assertEquals(0, reaper.reap(sends::inUse));
        assertEquals(1, old.closes.get(), "and only once");
        assertEquals(0, current.closes.get(), "a handle in use and not retired stays");
    }

    @Test
    void aHandleNoSendUsedGoesAtTheNextReapAndEverythingGoesWhenTheResourcesClose() {
        CountingHandle unused = new CountingHandle();
        CountingHandle busy = new CountingHandle();
        sends.set(0, busy);
        reaper.retire(unused);
        reaper.retire(busy);
        reaper.retire(null); // a group without a handle: nothing to do
        assertEquals(2, reaper.waiting());
        assertEquals(1, reaper.reap(sends::inUse));
        assertEquals(1, unused.closes.get());
        assertEquals(0, busy.closes.get());
        // The queue pair is destroyed first when the link goes down: no send can use a handle after.
        reaper.closeAll();
        assertEquals(1, busy.closes.get());
        assertEquals(0, reaper.waiting());
    }
}
