package ipoib.netdev.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The shared epoll poller on pipes (no privilege needed): many descriptors served by one thread,
 * a closed registration never read again, a failing or throwing reader not stopping the others,
 * and the thread's life from the first registration to the last.
 */
class DescriptorPollerTest {
    private static final Linker LINKER = Linker.nativeLinker();
    private static final MethodHandle PIPE2 = libc("pipe2",
            FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.ADDRESS, ValueLayout.JAVA_INT));
    private static final MethodHandle READ = libc("read",
            FunctionDescriptor.of(ValueLayout.JAVA_LONG, ValueLayout.JAVA_INT, ValueLayout.ADDRESS, ValueLayout.JAVA_LONG));
    private static final MethodHandle WRITE = libc("write",
            FunctionDescriptor.of(ValueLayout.JAVA_LONG, ValueLayout.JAVA_INT, ValueLayout.ADDRESS, ValueLayout.JAVA_LONG));
    private static final MethodHandle CLOSE = libc("close", FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT));
    private static final int O_NONBLOCK = 0x800;
    private static final int O_CLOEXEC = 0x80000;

    private final Arena arena = Arena.ofShared();
    private final List<Integer> descriptors = new ArrayList<>();
    private final DescriptorPoller poller = new DescriptorPoller("test-poller");

    private static MethodHandle libc(String name, FunctionDescriptor d) {
        return LINKER.downcallHandle(LINKER.defaultLookup().find(name).orElseThrow(), d);
    }

    @AfterEach
    void closeDescriptors() throws Throwable {
        for (int fd : descriptors) {
            int ignored = (int) CLOSE.invokeExact(fd);
        }
        arena.close();
    }

    /** A non-blocking pipe: {read end, write end}. */
    private int[] pipe() throws Throwable {
        MemorySegment fds = arena.allocate(ValueLayout.JAVA_INT, 2);
        assertEquals(0, (int) PIPE2.invokeExact(fds, O_NONBLOCK | O_CLOEXEC));
        int[] p = {fds.getAtIndex(ValueLayout.JAVA_INT, 0), fds.getAtIndex(ValueLayout.JAVA_INT, 1)};
        descriptors.add(p[0]);
        descriptors.add(p[1]);
        return p;
    }

    private void write(int fd, String text) throws Throwable {
        MemorySegment s = arena.allocateFrom(text);
        assertEquals(text.length(), (long) WRITE.invokeExact(fd, s, (long) text.length()));
    }

    /** Reads what the pipe holds (what a device's reader does until EAGAIN). */
    private String drain(int fd) {
        MemorySegment b = Arena.ofAuto().allocate(256);
        StringBuilder out = new StringBuilder();
        try {
            long n;
            while ((n = (long) READ.invokeExact(fd, b, 256L)) > 0) {
                out.append(new String(b.asSlice(0, n).toArray(ValueLayout.JAVA_BYTE)));
            }
        } catch (Throwable t) {
            throw new AssertionError(t);
        }
        return out.toString();
    }

    /** Polls the condition until it holds, parking briefly between looks (10 s at most). */
    private static void await(BooleanSupplier condition, String what) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("not within 10 s: " + what);
            }
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
        }
    }

    @Test
    void oneThreadReadsEveryRegisteredDescriptorWhenItHasData() throws Throwable {
        List<String> read = new CopyOnWriteArrayList<>();
        List<Thread> readers = new CopyOnWriteArrayList<>();
        List<DescriptorPoller.Registration> registrations = new ArrayList<>();
        List<int[]> pipes = new ArrayList<>();
        for (int i = 0; i < 40; i++) {
            int[] p = pipe();
            pipes.add(p);
            registrations.add(poller.register(p[0], () -> {
                readers.add(Thread.currentThread());
                read.add(drain(p[0]));
                return true;
            }));
        }
        assertEquals(40, poller.registered());
        for (int i = 0; i < 40; i++) {
            write(pipes.get(i)[1], "packet " + i);
        }
        await(() -> read.size() >= 40, "40 reads, got " + read);
        for (int i = 0; i < 40; i++) {
            assertTrue(read.contains("packet " + i), read.toString());
        }
        assertEquals(1, readers.stream().distinct().count(), "one thread for all descriptors");
        assertFalse(readers.get(0).isVirtual());
        registrations.forEach(DescriptorPoller.Registration::close);
    }

    @Test
    void aClosedRegistrationIsNotReadAndTheLastCloseEndsTheThread() throws Throwable {
        int[] a = pipe();
        int[] b = pipe();
        AtomicInteger readsOfA = new AtomicInteger();
        List<String> readOfB = new CopyOnWriteArrayList<>();
        DescriptorPoller.Registration ra = poller.register(a[0], () -> {
            readsOfA.incrementAndGet();
            drain(a[0]);
            return true;
        });
        DescriptorPoller.Registration rb = poller.register(b[0], () -> readOfB.add(drain(b[0])));
        assertTrue(poller.running());
        ra.close();
        write(a[1], "after close");
        write(b[1], "b");
        await(() -> readOfB.contains("b"), "b read");
        // The poller's round that read b came after a's data was written: a was not read in it.
        assertEquals(0, readsOfA.get());
        rb.close();
        assertFalse(poller.running());
        assertEquals(0, poller.registered());
        List<String> again = new CopyOnWriteArrayList<>();
        DescriptorPoller.Registration rc = poller.register(b[0], () -> again.add(drain(b[0])));
        write(b[1], "new thread");
        await(() -> again.contains("new thread"), "read after a new first registration");
        rc.close();
    }

    @Test
    void aFailingOrThrowingReaderIsBackedOffAndTheOthersAreStillRead() throws Throwable {
        int[] failing = pipe();
        int[] throwing = pipe();
        int[] healthy = pipe();
        AtomicInteger failures = new AtomicInteger();
        AtomicInteger throwsCount = new AtomicInteger();
        List<String> read = new CopyOnWriteArrayList<>();
        // Neither drains its pipe: each stays readable, as a failing device polls ready at once.
        DescriptorPoller.Registration rf = poller.register(failing[0], () -> {
            failures.incrementAndGet();
            return false;
        });
        DescriptorPoller.Registration rt = poller.register(throwing[0], () -> {
            throwsCount.incrementAndGet();
            throw new IllegalStateException("reader fails");
        });
        DescriptorPoller.Registration rh = poller.register(healthy[0], () -> read.add(drain(healthy[0])));
        write(failing[1], "x");
        write(throwing[1], "x");
        for (int i = 0; i < 5; i++) {
            String text = "round " + i;
            write(healthy[1], text);
            await(() -> read.contains(text), text);
        }
        // Backed off, then waited on again: each is called again while it stays readable.
        await(() -> failures.get() >= 2 && throwsCount.get() >= 2, "failing readers resumed after their back-off");
        rf.close();
        rt.close();
        rh.close();
    }

    @Test
    void closeWaitsForAReadInProgress() throws Throwable {
        int[] p = pipe();
        CountDownLatch inRead = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        DescriptorPoller.Registration r = poller.register(p[0], () -> {
            inRead.countDown();
            try {
                release.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            drain(p[0]);
            return true;
        });
        write(p[1], "x");
        assertTrue(inRead.await(10, TimeUnit.SECONDS));
        Thread closer = new Thread(r::close);
        closer.start();
        await(() -> closer.getState() == Thread.State.BLOCKED, "close blocked on the read in progress");
        assertTrue(closer.isAlive());
        release.countDown();
        closer.join(10_000);
        assertFalse(closer.isAlive());
    }

    @Test
    void devicesGoToTheLeastLoadedPoller() throws Throwable {
        DescriptorPoller[] pollers = TunPollers.pollers(2);
        List<DescriptorPoller.Registration> rs = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            int[] p = pipe();
            rs.add(TunPollers.register(pollers, p[0], () -> true));
        }
        assertEquals(3, pollers[0].registered());
        assertEquals(2, pollers[1].registered());
        rs.get(0).close();
        rs.get(2).close();
        rs.get(4).close();
        assertEquals(0, pollers[0].registered());
        int[] p = pipe();
        rs.add(TunPollers.register(pollers, p[0], () -> true));
        assertEquals(1, pollers[0].registered());
        rs.get(1).close();
        rs.get(3).close();
        rs.get(5).close();
        assertFalse(pollers[0].running());
        assertFalse(pollers[1].running());
    }
}
