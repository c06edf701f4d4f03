package ipoib.runtime.config;

import java.lang.reflect.Array;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Dictionary;
import java.util.Enumeration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/** A configuration's properties as Configuration Admin stores them, comparable with what a component was given. */
public final class StoredProperties {
    private StoredProperties() {}

    /**
     * The user's part of a configuration: without what Configuration Admin and Declarative
     * Services add (service.pid, component.name, DS 1.5's osgi.ds.satisfying.condition.target, ...).
     */
    public static Map<String, Object> of(Map<String, ?> properties) {
        Map<String, Object> out = new LinkedHashMap<>();
        properties.forEach((k, v) -> {
            if (!k.startsWith("service.") && !k.startsWith("component.") && !k.startsWith("osgi.ds.")
                    && !k.startsWith("felix.") && !k.startsWith(":org.apache.felix.")) {
                out.put(k, v);
            }
        });
        return out;
    }

    /** The properties of a stored configuration (empty for none). */
    public static Map<String, Object> of(Dictionary<String, ?> properties) {
        Map<String, Object> out = new LinkedHashMap<>();
        if (properties != null) {
            for (Enumeration<String> keys = properties.keys(); keys.hasMoreElements();) {
                String k = keys.nextElement();
                out.put(k, properties.get(k));
            }
        }
        return of(out);
    }

    /**
     * Whether every stored property has its value in what a component was given: DS gives the
     * stored properties over the defaults bnd wrote into the component description.
     */
    public static boolean within(Map<String, ?> stored, Map<String, ?> given) {
        for (Map.Entry<String, ?> e : stored.entrySet()) {
            if (!given.containsKey(e.getKey()) || !Objects.equals(normal(e.getValue()), normal(given.get(e.getKey())))) {
                return false;
            }
        }
        return true;
    }

    /** Equal properties; arrays and collections compared by their elements. */
    public static boolean same(Map<String, ?> a, Map<String, ?> b) {
        if (!a.keySet().equals(b.keySet())) {
            return false;
        }
        for (String k : a.keySet()) {
            if (!sameValue(a.get(k), b.get(k))) {
                return false;
            }
        }
        return true;
    }

    /** Equal values; arrays and collections compared by their elements. */
    public static boolean sameValue(Object a, Object b) {
        return Objects.equals(normal(a), normal(b));
    }

    private static Object normal(Object v) {
        if (v != null && v.getClass().isArray()) {
            ArrayList<Object> list = new ArrayList<>();
            for (int i = 0; i < Array.getLength(v); i++) {
                list.add(Array.get(v, i));
            }
            return list;
        }
        return v instanceof Collection<?> c ? new ArrayList<>(c) : v;
    }
}
