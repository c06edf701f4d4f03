package ipoib.runtime;

import java.lang.ref.WeakReference;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;

/**
 * A value per thread, like a {@link ThreadLocal}, that does not keep its owner's bundle alive
 * from threads that outlive it. A {@code ThreadLocal} value is held by each thread's map until the
 * thread ends or the map happens to expunge the entry; a value whose class a bundle loaded, kept
 * by another bundle's long-lived thread (a resolver's control thread that sent through the
 * loopback provider), holds that bundle's class loader, and so every class of a revision that an
 * update replaced. Here a thread's map holds only a {@link WeakReference} (a class of the JDK) to
 * the value; the values are held by this object, which lets go of those whose thread ended.
 *
 * <p>{@link #get()} allocates nothing once the calling thread has its value.
 */
public final class PerThread<T> {
    private final Supplier<? extends T> initial;
    private final ThreadLocal<WeakReference<T>> local = new ThreadLocal<>();
    /** The values of the threads that have one (guarded by this). */
    private final List<Held<T>> held = new ArrayList<>();

    private record Held<T>(Thread thread, T value) {}

    /** @param initial makes a thread's value on its first {@link #get()}, on that thread */
    public PerThread(Supplier<? extends T> initial) {
        this.initial = initial;
    }

    /** The calling thread's value, made on its first call. */
    public T get() {
        WeakReference<T> ref = local.get();
        if (ref != null) {
            T value = ref.get();
            if (value != null) {
                return value;
            }
        }
        return make();
    }

    private T make() {
        T value = initial.get();
        Thread me = Thread.currentThread();
        synchronized (this) {
            held.removeIf(h -> !h.thread().isAlive());
            held.add(new Held<>(me, value));
        }
        local.set(new WeakReference<>(value));
        return value;
    }
}
