package ipoib.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.management.ManagementFactory;
import java.lang.ref.WeakReference;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

class PerThreadTest {

    @Test
    void eachThreadHasItsOwnValueMadeOnceOnThatThread() throws Exception {
        AtomicInteger made = new AtomicInteger();
        PerThread<Thread> perThread = new PerThread<>(() -> {
            made.incrementAndGet();
            return Thread.currentThread();
        });
        assertSame(Thread.currentThread(), perThread.get());
        assertSame(perThread.get(), perThread.get());
        AtomicReference<Thread> other = new AtomicReference<>();
        Thread t = Thread.ofPlatform().start(() -> other.set(perThread.get()));
        t.join();
        assertSame(t, other.get());
        assertNotSame(other.get(), perThread.get());
        assertEquals(2, made.get());
    }

    @Test
    void aThreadThatOutlivesTheOwnerDoesNotKeepItsValue() {
        WeakReference<Object> value = valueOfAnOwnerLetGo();
        assertTrue(Collected.within(Duration.ofSeconds(10), value),
                "the value of an unreachable PerThread is still reachable from the thread that asked for it");
    }

    private static WeakReference<Object> valueOfAnOwnerLetGo() {
        PerThread<Object> perThread = new PerThread<>(Object::new);
        return new WeakReference<>(perThread.get());
    }

    @Test
    void theValuesOfEndedThreadsAreLetGoWhenAnotherThreadArrives() throws Exception {
        PerThread<Object> perThread = new PerThread<>(Object::new);
        AtomicReference<WeakReference<Object>> ended = new AtomicReference<>();
        Thread t = Thread.ofPlatform().start(() -> ended.set(new WeakReference<>(perThread.get())));
        t.join();
        Thread.ofPlatform().start(perThread::get).join();
        assertTrue(Collected.within(Duration.ofSeconds(10), ended.get()), "an ended thread's value is still held");
    }

    @Test
    void getAllocatesNothingOnceTheThreadHasItsValue() {
        PerThread<Object> perThread = new PerThread<>(Object::new);
        var threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        for (int i = 0; i < 100_000; i++) {
            perThread.get();
        }
        long before = threads.getCurrentThreadAllocatedBytes();
        for (int i = 0; i < 100_000; i++) {
            perThread.get();
        }
        long allocated = threads.getCurrentThreadAllocatedBytes() - before;
        assertTrue(allocated < 1000, allocated + " octets allocated in 100,000 look-ups");
    }
}
