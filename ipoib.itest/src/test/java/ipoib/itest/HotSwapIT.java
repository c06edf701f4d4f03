package ipoib.itest;

import static ipoib.itest.Testbed.EXPERIMENTAL;
import static ipoib.itest.Testbed.payload;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import ipoib.api.JoinState;
import ipoib.api.link.IpoibLink;
import ipoib.api.link.LinkState;
import ipoib.api.mcast.MulticastService;
import java.net.InetAddress;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import javax.inject.Inject;
import org.apache.felix.service.command.CommandProcessor;
import org.junit.ClassRule;
import org.junit.Test;
import org.junit.runner.RunWith;
import org.ops4j.pax.exam.Configuration;
import org.ops4j.pax.exam.Option;
import org.ops4j.pax.exam.junit.PaxExam;
import org.ops4j.pax.exam.spi.reactors.ExamReactorStrategy;
import org.ops4j.pax.exam.spi.reactors.PerSuite;
import org.osgi.framework.Bundle;
import org.osgi.framework.BundleContext;
import org.osgi.framework.FrameworkEvent;
import org.osgi.framework.FrameworkListener;
import org.osgi.service.cm.ConfigurationAdmin;
import org.osgi.service.log.LogEntry;
import org.osgi.service.log.LogLevel;
import org.osgi.service.log.LogListener;
import org.osgi.service.log.LogReaderService;

/**
 * The verbs provider is stopped and started twenty times while a sender thread keeps sending
 * broadcasts and multicasts on both interfaces. Afterwards every interface is UP, traffic flows,
 * the same threads run as before, no framework callback threw, and no ipoib bundle logged an
 * error.
 */
@RunWith(PaxExam.class)
@ExamReactorStrategy(PerSuite.class)
public class HotSwapIT {
    @ClassRule
    public static final SharedFramework SHARED = new SharedFramework("ipoib.codec", "ipoib.verbs.loopback", "ipoib.link", "ipoib.mcast");
    private static final InetAddress LISTENED = InetAddress.ofLiteral("239.3.0.1");
    private static final InetAddress SEND_ONLY = InetAddress.ofLiteral("239.3.0.2");
    private static final InetAddress NOBODY = InetAddress.ofLiteral("239.3.0.3");

    @Inject
    BundleContext context;
    @Inject
    ConfigurationAdmin configurationAdmin;
    @Inject
    CommandProcessor shell;
    @Inject
    LogReaderService logReader;

    @Configuration
    public Option[] config() {
        return OsgiTestSupport.sharedRuntime();
    }

    /** Names of the toolkit's threads, virtual ones included, sorted (a multiset: two interfaces have two receive threads). */
    private static List<String> toolkitThreads() {
        return LiveThreads.named("ipoib-", "loopback-");
    }

    @Test
    public void twentyProviderRestartsUnderTrafficLeaveEverythingUpAndClean() throws Exception {
        Testbed bed = new Testbed(context, configurationAdmin, shell);
        bed.createLink("a", "loop0");
        bed.createLink("b", "loop1");
        bed.awaitUp("a", "b");
        MulticastService multicast = bed.multicast();
        Await.until("the multicast manager follows a and b", Duration.ofSeconds(10),
                () -> !multicast.counters("a").isEmpty() && !multicast.counters("b").isEmpty());
        multicast.joinListener("b", LISTENED).toCompletableFuture().get(10, TimeUnit.SECONDS);
        multicast.joinListener("a", SEND_ONLY).toCompletableFuture().get(10, TimeUnit.SECONDS);
        bed.listen();
        // Warm: every thread the steady state has is running (the capture of a send-only join, ...).
        bed.link("a").sendBroadcast(EXPERIMENTAL, payload("warm"));
        bed.await("warm", f -> f.text().equals("warm"));
        List<String> threadsBefore = toolkitThreads();

        ConcurrentLinkedQueue<String> problems = new ConcurrentLinkedQueue<>();
        FrameworkListener frameworkListener = event -> {
            if (event.getType() == FrameworkEvent.ERROR || event.getType() == FrameworkEvent.WARNING) {
                problems.add("framework event " + event.getType() + " from " + event.getBundle().getSymbolicName()
                        + ": " + event.getThrowable());
            }
        };
        AtomicLong ipoibEntries = new AtomicLong();
        LogListener logListener = (LogEntry entry) -> {
            if (entry.getBundle() != null && entry.getBundle().getSymbolicName().startsWith("ipoib")) {
                ipoibEntries.incrementAndGet();
            }
            if (entry.getLogLevel() == LogLevel.ERROR && entry.getBundle() != null
                    && entry.getBundle().getSymbolicName().startsWith("ipoib")) {
                problems.add("ERROR logged by " + entry.getBundle().getSymbolicName() + ": " + entry.getMessage() + " "
                        + entry.getException());
            }
        };
        context.addFrameworkListener(frameworkListener);
        logReader.addLogListener(logListener);

        AtomicBoolean sending = new AtomicBoolean(true);
        AtomicLong sent = new AtomicLong();
        Thread sender = new Thread(() -> {
            while (sending.get()) {
                try {
                    for (String name : new String[] {"a", "b"}) {
                        IpoibLink l = bed.link(name);
                        if (l == null) {
                            continue;
                        }
                        l.sendBroadcast(EXPERIMENTAL, payload("broadcast"));
                        multicast.send(l, LISTENED, EXPERIMENTAL, payload("listened"));
                        multicast.send(l, SEND_ONLY, EXPERIMENTAL, payload("send-only"));
                        multicast.send(l, NOBODY, EXPERIMENTAL, payload("nobody"));
                    }
                    sent.incrementAndGet();
                } catch (Throwable t) {
                    problems.add("sender: " + t);
                }
                LockSupport.parkNanos(200_000);
            }
        }, "test-sender");
        sender.start();
        Bundle loopback = Arrays.stream(context.getBundles())
                .filter(b -> "ipoib.verbs.loopback".equals(b.getSymbolicName())).findFirst().orElseThrow();
        try {
            for (int round = 0; round < 20; round++) {
                loopback.stop();
                assertEquals(LinkState.DOWN, bed.link("a").state());
                loopback.start();
                if (round % 5 == 4) {
                    bed.awaitUp("a", "b");
                }
            }
        } finally {
            sending.set(false);
            sender.join(10_000);
            context.removeFrameworkListener(frameworkListener);
            logReader.removeLogListener(logListener);
        }
        assertTrue("the sender ran", sent.get() > 0);
        assertTrue("the log listener hears the ipoib bundles (they log every link coming UP)", ipoibEntries.get() > 0);

        bed.awaitUp("a", "b");
        Await.until("the listeners' groups are joined again", Duration.ofSeconds(20),
                () -> joined(multicast, "b", LISTENED) && joined(multicast, "a", SEND_ONLY));
        bed.clearReceived();
        bed.link("a").sendBroadcast(EXPERIMENTAL, payload("broadcast after"));
        bed.await("b gets the broadcast", f -> f.link().equals("b") && f.text().equals("broadcast after"));
        Await.until("a's multicast reaches b", Duration.ofSeconds(20), () -> {
            multicast.send(bed.link("a"), LISTENED, EXPERIMENTAL, payload("multicast after"));
            try {
                return bed.receives(Duration.ofMillis(50),
                        f -> f.link().equals("b") && f.text().equals("multicast after"));
            } catch (InterruptedException e) {
                throw new AssertionError(e);
            }
        });
        Await.until("the same threads as before", Duration.ofSeconds(10),
                () -> toolkitThreads().equals(threadsBefore),
                () -> "before " + threadsBefore + ", now " + toolkitThreads());
        assertTrue(String.join("\n", problems), problems.isEmpty());
        bed.stopListening();
    }

    private static boolean joined(MulticastService multicast, String link, InetAddress group) {
        return multicast.groups(link).stream().anyMatch(g -> group.equals(g.group())
                && g.joinState() == JoinState.FULL_MEMBER);
    }

    /**
     * The multicast bundle is stopped and started five times while a sender keeps sending through
     * whichever multicast service is there: sends fail soft (counted drops) while it is away, its
     * thread ends with it, and the new one serves joins and sends.
     */
    @Test
    public void restartingTheMulticastBundleUnderTrafficIsClean() throws Exception {
        Testbed bed = new Testbed(context, configurationAdmin, shell);
        bed.createLink("a", "loop0");
        bed.createLink("b", "loop1");
        bed.awaitUp("a", "b");
        bed.listen();
        Bundle mcast = Arrays.stream(context.getBundles())
                .filter(b -> "ipoib.mcast".equals(b.getSymbolicName())).findFirst().orElseThrow();
        Await.until("the multicast manager runs", Duration.ofSeconds(10), () -> current() != null);
        List<String> threadsBefore = toolkitThreads();
        ConcurrentLinkedQueue<String> problems = new ConcurrentLinkedQueue<>();
        FrameworkListener frameworkListener = event -> {
            if (event.getType() == FrameworkEvent.ERROR || event.getType() == FrameworkEvent.WARNING) {
                problems.add("framework event " + event.getType() + ": " + event.getThrowable());
            }
        };
        context.addFrameworkListener(frameworkListener);
        AtomicBoolean sending = new AtomicBoolean(true);
        Thread sender = new Thread(() -> {
            while (sending.get()) {
                try {
                    MulticastService m = current();
                    IpoibLink a = bed.link("a");
                    if (m != null && a != null) {
                        m.send(a, LISTENED, EXPERIMENTAL, payload("through a restart"));
                    }
                } catch (Throwable t) {
                    problems.add("sender: " + t);
                }
                LockSupport.parkNanos(200_000);
            }
        }, "test-sender");
        sender.start();
        try {
            for (int round = 0; round < 5; round++) {
                mcast.stop();
                Await.until("the manager's thread ended with its bundle", Duration.ofSeconds(5),
                        () -> toolkitThreads().stream().noneMatch(n -> n.equals("ipoib-mcast")));
                mcast.start();
            }
        } finally {
            sending.set(false);
            sender.join(10_000);
            context.removeFrameworkListener(frameworkListener);
        }
        Await.until("a new multicast manager follows a and b", Duration.ofSeconds(10),
                this::current, m -> !m.counters("a").isEmpty() && !m.counters("b").isEmpty());
        current().joinListener("b", LISTENED).toCompletableFuture().get(10, TimeUnit.SECONDS);
        bed.clearReceived();
        Await.until("a's multicast reaches b", Duration.ofSeconds(20), () -> {
            current().send(bed.link("a"), LISTENED, EXPERIMENTAL, payload("after the restarts"));
            try {
                return bed.receives(Duration.ofMillis(50),
                        f -> f.link().equals("b") && f.text().equals("after the restarts"));
            } catch (InterruptedException e) {
                throw new AssertionError(e);
            }
        });
        Await.until("the same threads as before", Duration.ofSeconds(10),
                () -> toolkitThreads().equals(threadsBefore),
                () -> "before " + threadsBefore + ", now " + toolkitThreads());
        assertTrue(String.join("\n", problems), problems.isEmpty());
        current().leaveListener("b", LISTENED).toCompletableFuture().get(10, TimeUnit.SECONDS);
        bed.stopListening();
    }

    /** The multicast service registered now, or null. */
    private MulticastService current() {
        var ref = context.getServiceReference(MulticastService.class);
        try {
            return ref == null ? null : context.getService(ref);
        } catch (RuntimeException gone) {
            return null;
        }
    }
}
