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
