package ipoib.link.internal;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Which interface configuration holds which name and which (HCA, port, partition), across every
 * link component of the bundle: a second interface with a name in use, or on a port and partition
 * already served, is refused with the name of the one that holds it (two interfaces on one
 * partition of a port would share a GID and answer for each other). A refused configuration waits
 * and comes up by itself when the holder goes away. Configuration updates that were refused are
 * noted here too, for {@code ipoib:links}.
 */
public final class LinkClaims {
    public static final LinkClaims INSTANCE = new LinkClaims();

    private record Claim(String name, String device, int port, int partition) {
        static Claim of(LinkConfig c) {
            // Full and limited membership of a P_Key are one partition (IBA 10.9.1).
            return new Claim(c.name(), c.device(), c.port(), c.pkey().value() & 0x7FFF);
        }
    }

    /** A configuration that is not running, and why; {@code retry} runs when a claim is released. */
    public record Refusal(String name, String reason, Runnable retry) {}

    private final Map<Object, Claim> held = new LinkedHashMap<>();
    /** The component of each configuration PID, so that a configuration is not compared with itself. */
    private final Map<String, Object> owners = new LinkedHashMap<>();
    private final Map<Object, Refusal> refused = new LinkedHashMap<>();
    /** The last refused update of a running interface, by interface name. */
    private final Map<String, String> refusedUpdates = new LinkedHashMap<>();

    /** Why {@code config} cannot run next to the others (ignoring {@code owner}'s own claim), or null. */
    String conflict(Object owner, LinkConfig config) {
        return conflict(owner, config.name(), config.device(), config.port(), config.pkey());
    }

    /** Why an interface with these name, device, port and P_Key cannot be added now, or null. */
    public synchronized String conflict(Object owner, String name, String device, int port, ipoib.api.PKey pkey) {
        Claim wanted = new Claim(name, device, port, pkey.value() & 0x7FFF);
        for (Map.Entry<Object, Claim> e : held.entrySet()) {
            if (e.getKey() == owner) {
                continue;
            }
            Claim c = e.getValue();
            if (c.name().equals(wanted.name())) {
                return "an interface named '" + c.name() + "' exists";
            }
            if (c.device().equals(wanted.device()) && c.port() == wanted.port() && c.partition() == wanted.partition()) {
                return "interface " + c.name() + " already runs on " + c.device() + " port " + c.port() + " P_Key "
                        + pkey + " (one interface per HCA, port and partition)";
            }
        }
        return null;
    }

    /** The component that runs the configuration {@code pid}. */
    synchronized void owner(String pid, Object owner) {
        owners.put(pid, owner);
    }

    /** The component's configuration is gone. */
    synchronized void forgetOwner(Object owner) {
        owners.values().remove(owner);
    }

    /** The component of the configuration {@code pid}, or null. */
    synchronized Object ownerOf(String pid) {
        return pid == null ? null : owners.get(pid);
    }

    /** Takes the claim, or returns why not (then nothing changed). */
    synchronized String claim(Object owner, LinkConfig config) {
        String why = conflict(owner, config);
        if (why == null) {
            held.put(owner, Claim.of(config));
            refused.remove(owner);
        }
        return why;
    }

    synchronized void refuse(Object owner, String name, String reason, Runnable retry) {
        held.remove(owner);
        refused.put(owner, new Refusal(name, reason, retry));
    }

    /** Gives up the owner's claim or refusal; the refused configurations try again. */
    void release(Object owner) {
        List<Refusal> waiting;
        synchronized (this) {
            Claim gone = held.remove(owner);
            refused.remove(owner);
            if (gone != null) {
                refusedUpdates.remove(gone.name());
            }
            waiting = gone == null ? List.of() : new ArrayList<>(refused.values());
        }
        for (Refusal r : waiting) {
            r.retry().run();
        }
    }

    synchronized void refusedUpdate(String name, String reason) {
        if (reason == null) {
            refusedUpdates.remove(name);
        } else {
            refusedUpdates.put(name, reason);
        }
    }

    public synchronized String refusedUpdate(String name) {
        return refusedUpdates.get(name);
    }

    /** The configurations that are not running, in the order they came. */
    public synchronized List<Refusal> refusals() {
        return List.copyOf(refused.values());
    }
}
