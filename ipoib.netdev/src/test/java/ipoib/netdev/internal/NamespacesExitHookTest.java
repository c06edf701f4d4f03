package ipoib.netdev.internal;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;

import org.junit.jupiter.api.Test;

/** One exit hook per process: a new revision of the bundle replaces the hook of the one before. */
class NamespacesExitHookTest {
    @Test
    void theHookOfAnEarlierRevisionIsRemovedSoItsClassLoaderCanGo() {
        Thread earlier = new Thread(() -> { }, "an earlier revision's hook");
        Runtime.getRuntime().addShutdownHook(earlier);
        System.getProperties().put(Namespaces.EXIT_HOOK, earlier);

        Namespaces.watchExit();
        Object hook = System.getProperties().get(Namespaces.EXIT_HOOK);
        try {
            assertFalse(Runtime.getRuntime().removeShutdownHook(earlier), "the earlier hook is no longer registered");
            assertInstanceOf(Thread.class, hook);
            assertNotSame(earlier, hook);

            Namespaces.watchExit();
            assertSame(hook, System.getProperties().get(Namespaces.EXIT_HOOK), "watching again keeps the one hook");
        } finally {
            Runtime.getRuntime().removeShutdownHook((Thread) hook);
            System.getProperties().remove(Namespaces.EXIT_HOOK);
        }
    }
}
