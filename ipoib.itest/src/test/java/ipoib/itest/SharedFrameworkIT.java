package ipoib.itest;

import org.junit.runner.RunWith;
import org.junit.runners.Suite;
import org.junit.runners.Suite.SuiteClasses;

/**
 * The Pax Exam classes that run in one framework ({@link OsgiTestSupport#sharedRuntime()}, Pax
 * Exam's per-suite strategy): a JUnit suite, so that every class's tests are known before the
 * framework starts (failsafe otherwise creates each class's runner just before it runs it, and the
 * per-suite framework would stop after each class and start again for the next). Each class
 * declares {@link SharedFramework} as a class rule, which gives it the framework as it started. The
 * classes run on their own too ({@code -Dit.test=LinkIT}), then with a framework of their own;
 * failsafe leaves them out of a full run, where this suite runs them (ipoib.itest's pom).
 */
@RunWith(Suite.class)
@SuiteClasses({
    FoundationIT.class, LoopbackProviderIT.class, CaptureIT.class, LinkIT.class, HealingIT.class, HotSwapIT.class,
    ConnectedModeIT.class, PartitionIT.class, ResolverHotSwapIT.class, BundleUpdateIT.class,
    SwitchedTopologyIT.class, RefusedUpdateIT.class, FabricProviderIT.class, ArpIT.class, NdIT.class,
    MulticastIT.class
})
public class SharedFrameworkIT {}
