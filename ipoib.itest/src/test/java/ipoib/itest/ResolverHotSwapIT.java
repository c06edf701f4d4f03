package ipoib.itest;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import ipoib.api.host.EchoReply;
import ipoib.api.link.LinkState;
import java.net.InetAddress;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import javax.inject.Inject;
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

/**
 * Restarting a resolver bundle under ping traffic: the links stay UP, packets that need the
 * resolver meanwhile are dropped and counted by the host as DROPPED_NO_RESOLVER, traffic
 * resumes by itself when the bundle is back, and nothing leaks or logs a framework error.
 */
@RunWith(PaxExam.class)
@ExamReactorStrategy(PerSuite.class)
public class ResolverHotSwapIT {
    @ClassRule
    public static final SharedFramework SHARED = new SharedFramework("ipoib.codec", "ipoib.verbs.loopback", "ipoib.link", "ipoib.mcast",
            "ipoib.arp", "ipoib.nd", "ipoib.host");

    @Inject
    BundleContext context;
    @Inject
    ConfigurationAdmin configurationAdmin;

    @Configuration
    public Option[] config() {
        return OsgiTestSupport.sharedRuntime();
    }

    /** Pings a→b every few milliseconds on its own thread, counting replies. */
    static final class Traffic implements AutoCloseable {
        final AtomicLong replies = new AtomicLong();
        final AtomicLong sent = new AtomicLong();
        final AtomicBoolean running = new AtomicBoolean(true);
        final Thread thread;

        Traffic(IpFixture ip, String link, String destination) {
            thread = new Thread(() -> {
                int seq = 0;
                while (running.get()) {
                    try {
                        CompletableFuture<EchoReply> r = ip.host().echo(link, InetAddress.getByName(destination), 0x7777,
                                ++seq & 0xFFFF, 16, Duration.ofMillis(200)).toCompletableFuture();
                        sent.incrementAndGet();
                        r.get(1, TimeUnit.SECONDS);
                        replies.incrementAndGet();
                    } catch (Exception dropOrTimeout) {
                        // Counted by the host; the next one goes out after the pause.
                    }
                    java.util.concurrent.locks.LockSupport.parkNanos(5_000_000);
                }
            }, "hot-swap-traffic");
            thread.setDaemon(true);
            thread.start();
        }

        void awaitReplies(long more, String what) {
            long target = replies.get() + more;
            Await.until(what, Duration.ofSeconds(20), () -> replies.get() >= target);
        }

        @Override
        public void close() {
            running.set(false);
            try {
                thread.join(5000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private static long threads(String name) {
        return Thread.getAllStackTraces().keySet().stream().filter(t -> t.getName().equals(name) && t.isAlive()).count();
    }

    private IpFixture interfaces() throws Exception {
        IpFixture ip = new IpFixture(context, configurationAdmin);
        ip.await(ipoib.api.mcast.MulticastService.class, null);
        if (ip.link("a") == null) {
            ip.configure("ipoib.arp", "retransmitMillis", 100);
            ip.configure("ipoib.nd", "retransmitMillis", 100);
            ip.createLink("a", "loop0", "0xffff");
            ip.createLink("b", "loop1", "0xffff");
            ip.awaitUp("a");
            ip.awaitUp("b");
            ip.address("a", "10.4.0.1", 24);
            ip.address("b", "10.4.0.2", 24);
            ip.address("a", "fd00:6::1", 64);
            ip.address("b", "fd00:6::2", 64);
        }
        ip.awaitUp("a");
        ip.awaitUp("b");
        for (String[] la : new String[][] {{"a", "fd00:6::1"}, {"b", "fd00:6::2"}}) {
            Await.until(la[1] + " usable", Duration.ofSeconds(15), () -> {
                try {
                    var x = ip.findAddress(la[0], la[1]);
                    return x != null && x.state() == ipoib.api.host.AddressState.PREFERRED;
                } catch (Exception e) {
                    throw new AssertionError(e);
                }
            });
        }
        return ip;
    }

    @Test
    public void restartingArpUnderTrafficDropsCountedAndRecovers() throws Exception {
        restartUnderTraffic("ipoib.arp", "10.4.0.2", "ipoib-arp");
    }

    @Test
    public void restartingNdUnderTrafficDropsCountedAndRecovers() throws Exception {
        restartUnderTraffic("ipoib.nd", "fd00:6::2", "ipoib-nd");
    }

    private void restartUnderTraffic(String bundleName, String destination, String threadName) throws Exception {
        IpFixture ip = interfaces();
        List<String> errors = new CopyOnWriteArrayList<>();
        FrameworkListener listener = e -> {
            if (e.getType() == FrameworkEvent.ERROR) {
                errors.add(String.valueOf(e.getThrowable()));
            }
        };
        context.addFrameworkListener(listener);
        Bundle resolver = ip.bundle(bundleName);
        try (Traffic traffic = new Traffic(ip, "a", destination)) {
            traffic.awaitReplies(3, "ping traffic flows");
            for (int round = 0; round < 3; round++) {
                long noResolver = ip.host().counters().get("tx_dropped_no_resolver");
                resolver.stop();
                long sent = traffic.sent.get();
                Await.until("pings go out without a resolver", Duration.ofSeconds(10), () -> traffic.sent.get() > sent + 5);
                assertEquals("links stay UP", LinkState.UP, ip.link("a").state());
                assertEquals(LinkState.UP, ip.link("b").state());
                assertTrue("echo requests and replies needing the resolver are dropped and counted",
                        ip.host().counters().get("tx_dropped_no_resolver") > noResolver);
                resolver.start();
                traffic.awaitReplies(3, "traffic resumes after restart " + round);
            }
        } finally {
            context.removeFrameworkListener(listener);
        }
        assertEquals("one " + threadName + " thread, none leaked", 1, threads(threadName));
        assertTrue("framework errors: " + errors, errors.isEmpty());
    }
}
