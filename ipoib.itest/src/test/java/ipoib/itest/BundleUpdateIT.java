package ipoib.itest;

import static ipoib.itest.Testbed.EXPERIMENTAL;
import static ipoib.itest.Testbed.payload;
import static org.junit.Assert.assertTrue;

import ipoib.api.link.IpoibLink;
import java.lang.ref.WeakReference;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
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
import org.osgi.framework.ServiceReference;
import org.osgi.framework.wiring.BundleWiring;
import org.osgi.framework.wiring.FrameworkWiring;
import org.osgi.service.cm.ConfigurationAdmin;

/**
 * Updating bundles leaves nothing of their old revisions behind: the loopback provider and the
 * link bundle are each updated five times while two interfaces run, the resolvers' threads and
 * this test's thread sending through them after each update; after a refresh, the class loader of
 * every replaced revision is collected. A thread that outlives a revision and keeps an object of
 * one of its classes (a per-thread value, an ended thread still referenced) would keep that
 * revision's every class.
 */
@RunWith(PaxExam.class)
@ExamReactorStrategy(PerSuite.class)
public class BundleUpdateIT {
    @ClassRule
    public static final SharedFramework SHARED = new SharedFramework("ipoib.codec", "ipoib.verbs.loopback", "ipoib.link", "ipoib.arp",
            "ipoib.nd");
    private static final String[] UPDATED = {"ipoib.verbs.loopback", "ipoib.link"};
    private static final int UPDATES = 5;

    @Inject
    BundleContext context;
    @Inject
    ConfigurationAdmin configurationAdmin;
    @Inject
    CommandProcessor shell;

    @Configuration
    public Option[] config() {
        return OsgiTestSupport.sharedRuntime();
    }

    /** A replaced revision: what it was, and its class loader, held weakly. */
    private record Replaced(String revision, WeakReference<ClassLoader> loader) {}

    @Test
    public void theClassLoadersOfReplacedRevisionsAreCollectedAfterARefresh() throws Exception {
        Testbed bed = new Testbed(context, configurationAdmin, shell);
        bed.createLink("a", "loop0");
        bed.createLink("b", "loop1");
        bed.awaitUp("a", "b");
        sendFromThisThread("a");

        List<Replaced> replaced = new ArrayList<>();
        for (int round = 1; round <= UPDATES; round++) {
            for (String name : UPDATED) {
                Bundle bundle = bundle(name);
                replaced.add(new Replaced(name + " before update " + round,
                        new WeakReference<>(bundle.adapt(BundleWiring.class).getClassLoader())));
                bundle.update();
                bed.awaitUp("a", "b");
                sendFromThisThread("a");
                sendFromThisThread("b");
            }
        }
        refresh();
        bed.awaitUp("a", "b");
        sendFromThisThread("a");

        // A collection per look: a class loader goes with a full GC, not on its own.
        Await.until("the class loaders of the replaced revisions to be collected after the refresh",
                Duration.ofSeconds(30), Duration.ofMillis(50), () -> {
                    System.gc();
                    return alive(replaced).isEmpty();
                }, () -> "; still loaded: " + alive(replaced).size() + " of " + replaced.size() + ": " + alive(replaced));
    }

    private static List<String> alive(List<Replaced> replaced) {
        return replaced.stream().filter(r -> r.loader().get() != null).map(Replaced::revision).toList();
    }

    private Bundle bundle(String symbolicName) {
        return Arrays.stream(context.getBundles()).filter(b -> symbolicName.equals(b.getSymbolicName())).findFirst()
                .orElseThrow(() -> new AssertionError("no bundle " + symbolicName));
    }

    /** A broadcast sent on this thread, which outlives every revision; the service is released at once. */
    private void sendFromThisThread(String link) throws Exception {
        ServiceReference<IpoibLink> ref = context.getServiceReferences(IpoibLink.class, "(ipoib.link=" + link + ")")
                .iterator().next();
        try {
            context.getService(ref).sendBroadcast(EXPERIMENTAL, payload("update"));
        } finally {
            context.ungetService(ref);
        }
    }

    /** Refreshes the bundles whose old revisions are pending removal, and waits until that is done. */
    private void refresh() throws InterruptedException {
        CountDownLatch refreshed = new CountDownLatch(1);
        context.getBundle(0).adapt(FrameworkWiring.class).refreshBundles(null, event -> {
            if (event.getType() == FrameworkEvent.PACKAGES_REFRESHED) {
                refreshed.countDown();
            }
        });
        assertTrue("refresh did not finish within 60 s", refreshed.await(60, TimeUnit.SECONDS));
    }
}
