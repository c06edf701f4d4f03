package ipoib.runtime;

import java.util.concurrent.FutureTask;

/**
 * Threads that keep nothing of their bundle once they have ended. An ended {@link Thread} still
 * holds the {@code Runnable} it ran, and an ended Thread object can stay reachable: Felix's
 * {@code BundleWiringImpl.BundleClassLoader.defineClassParallel} (framework 7.0.5) leaves a thread
 * in its map of class locks when another thread defined the class first, for the life of that
 * loader. A thread of an updated bundle caught there (a link's control thread loading a codec
 * class) held, through its task, the bundle's old class loader. Here the thread runs a
 * {@link FutureTask}, a class of the JDK that drops its task when it completes.
 */
public final class Threads {
    private Threads() {}

    /** An unstarted thread running {@code task}; a failure still reaches its uncaught-exception handler. */
    public static Thread create(String name, boolean daemon, Runnable task) {
        Thread t = new Thread(new FutureTask<Void>(new Reporting(task), null), name);
        t.setDaemon(daemon);
        return t;
    }

    /**
     * System property: {@code false} puts the per-interface loops that would run on virtual
     * threads ({@link #createVirtual}, {@link ThreadControlLoop#onVirtualThread}) on platform
     * threads, for tools that see platform threads only: {@code ThreadMXBean}'s per-thread
     * allocation, thread dumps and leak checks by name, CPU pinning. Read when a loop is made.
     */
    public static final String VIRTUAL_PROPERTY = "ipoib.threads.virtual";

    /** Whether per-interface loops run on virtual threads: unless {@value #VIRTUAL_PROPERTY} is {@code false}. */
    public static boolean virtualLoops() {
        return !"false".equals(System.getProperty(VIRTUAL_PROPERTY));
    }

    /**
     * An unstarted virtual thread running {@code task}: for a loop that waits far more than it
     * works and never waits in a native call, so that many of them (one per interface) share the
     * JDK's carrier threads, one per CPU, instead of holding a platform thread each.
     */
    public static Thread createVirtual(String name, Runnable task) {
        return Thread.ofVirtual().name(name).unstarted(new FutureTask<Void>(new Reporting(task), null));
    }

    /** What an uncaught failure would do, since a FutureTask keeps a failure instead of throwing it. */
    private record Reporting(Runnable task) implements Runnable {
        @Override
        public void run() {
            try {
                task.run();
            } catch (Throwable failure) {
                Thread me = Thread.currentThread();
                me.getUncaughtExceptionHandler().uncaughtException(me, failure);
            }
        }
    }
}
