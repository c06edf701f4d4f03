package ipoib.netdev.internal;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.function.Consumer;

/**
 * The devices kept while their configuration exists but no component runs it: the interface
 * restarts (a configuration change of the link, an update of the link bundle) or this bundle
 * stops. The TUN descriptor stays open with the carrier off, so the device keeps its namespace,
 * addresses and routes, and the programs in the namespace keep running; the next component of
 * the same configuration takes the descriptor back, as a NIC whose link comes back.
 *
 * <p>Kept in the JVM's system properties, by configuration PID: the one store of the process
 * that outlives this bundle's class loader (an update of the bundle makes a new one), and that
 * ends with the process, like the descriptors it names.
 */
final class ParkedDevices {
    private static final String PREFIX = "ipoib.netdev.parked.";
    private static final Properties STORE = System.getProperties();

    private ParkedDevices() {}

    /**
     * A device kept open: its descriptor, namespace ("" for the appliance's own), name, offload,
     * interface, and the addresses the stack had put on it (which the stack owns, not the user).
     */
    record Parked(int descriptor, String netns, String device, boolean offload, String link, List<String> fromStack) {
        String encode() {
            return descriptor + "|" + netns + "|" + device + "|" + offload + "|" + link + "|" + String.join(",", fromStack);
        }

        static Parked decode(String text) {
            String[] f = text.split("\\|", -1);
            return new Parked(Integer.parseInt(f[0]), f[1], f[2], Boolean.parseBoolean(f[3]), f[4],
                    f[5].isEmpty() ? List.of() : Arrays.asList(f[5].split(",")));
        }

        /** The namespace, or null for the appliance's own. */
        String namespace() {
            return netns.isEmpty() ? null : netns;
        }
    }

    static void park(String pid, Parked device) {
        synchronized (STORE) {
            STORE.setProperty(PREFIX + pid, device.encode());
        }
    }

    /** Takes the device parked for configuration {@code pid} out of the store, or null. */
    static Parked take(String pid) {
        synchronized (STORE) {
            Object text = STORE.remove(PREFIX + pid);
            return text == null ? null : Parked.decode(text.toString());
        }
    }

    /** Every parked device by configuration PID. */
    static Map<String, Parked> all() {
        synchronized (STORE) {
            Map<String, Parked> result = new java.util.TreeMap<>();
            for (String key : STORE.stringPropertyNames()) {
                if (key.startsWith(PREFIX)) {
                    result.put(key.substring(PREFIX.length()), Parked.decode(STORE.getProperty(key)));
                }
            }
            return result;
        }
    }

    /**
     * Removes a kept device whose configuration is gone or names another device now (taken out
     * of the store, or still in it under {@code pid}, which it leaves only when all is done): the
     * descriptor closes (the kernel deletes the device) and its namespace goes when this appliance
     * owns it and no other of its devices is there.
     */
    static void discard(String pid, Parked device, Consumer<String> warn) {
        try {
            Tun.reopen(device.descriptor(), device.device(), device.offload()).close();
        } catch (IOException e) {
            warn.accept(device.device() + ": " + e.getMessage());
        }
        if (device.namespace() != null) {
            Namespaces.release(device.namespace(), Registry.namespacesInUse(null, pid));
        }
        take(pid);
    }

    /** The namespaces of parked devices, but that of {@code exceptPid}'s (null: none excepted). */
    static List<String> namespaces(String exceptPid) {
        List<String> result = new ArrayList<>();
        for (Map.Entry<String, Parked> e : all().entrySet()) {
            if (!e.getKey().equals(exceptPid) && e.getValue().namespace() != null) {
                result.add(e.getValue().namespace());
            }
        }
        return result;
    }
}
