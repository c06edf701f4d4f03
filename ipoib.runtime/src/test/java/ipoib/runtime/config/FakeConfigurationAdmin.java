package ipoib.runtime.config;

import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.Dictionary;
import java.util.Hashtable;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.osgi.service.cm.Configuration;
import org.osgi.service.cm.ConfigurationAdmin;

/**
 * Configuration Admin as far as {@link LastGoodConfiguration} uses it: configurations by PID,
 * found with a {@code (service.pid=...)} filter, updated and deleted; every update and delete recorded.
 */
final class FakeConfigurationAdmin {
    final Map<String, Hashtable<String, Object>> stored = new LinkedHashMap<>();
    final List<String> calls = new ArrayList<>();
    final ConfigurationAdmin admin = (ConfigurationAdmin) Proxy.newProxyInstance(getClass().getClassLoader(),
            new Class<?>[] {ConfigurationAdmin.class}, (self, method, args) -> switch (method.getName()) {
                case "listConfigurations" -> list((String) args[0]);
                default -> throw new UnsupportedOperationException(method.getName());
            });

    /** Stores a configuration as Configuration Admin holds it: with its service.pid. */
    void store(String pid, Object... keyValues) {
        Hashtable<String, Object> p = new Hashtable<>();
        p.put("service.pid", pid);
        for (int i = 0; i < keyValues.length; i += 2) {
            p.put((String) keyValues[i], keyValues[i + 1]);
        }
        stored.put(pid, p);
    }

    /** What a component is given for the stored configuration: its properties over {@code defaults}, plus what DS adds. */
    Map<String, Object> delivered(String pid, Object... defaults) {
        Map<String, Object> p = new LinkedHashMap<>();
        for (int i = 0; i < defaults.length; i += 2) {
            p.put((String) defaults[i], defaults[i + 1]);
        }
        p.put("component.name", "sample");
        p.put("component.id", 7L);
        stored.get(pid).forEach(p::put);
        return p;
    }

    private Configuration[] list(String filter) {
        Matcher m = Pattern.compile("\\(service\\.pid=(.*)\\)").matcher(filter);
        if (!m.matches() || !stored.containsKey(m.group(1))) {
            return null;
        }
        String pid = m.group(1);
        return new Configuration[] {(Configuration) Proxy.newProxyInstance(getClass().getClassLoader(),
                new Class<?>[] {Configuration.class}, (self, method, args) -> switch (method.getName()) {
                    case "getProperties" -> new Hashtable<>(stored.get(pid));
                    case "getPid" -> pid;
                    case "update" -> {
                        @SuppressWarnings("unchecked")
                        Dictionary<String, Object> d = (Dictionary<String, Object>) args[0];
                        Hashtable<String, Object> p = new Hashtable<>();
                        for (var keys = d.keys(); keys.hasMoreElements();) {
                            String k = keys.nextElement();
                            p.put(k, d.get(k));
                        }
                        p.put("service.pid", pid);
                        stored.put(pid, p);
                        calls.add("update " + pid);
                        yield null;
                    }
                    case "delete" -> {
                        stored.remove(pid);
                        calls.add("delete " + pid);
                        yield null;
                    }
                    default -> throw new UnsupportedOperationException(method.getName());
                })};
    }
}
