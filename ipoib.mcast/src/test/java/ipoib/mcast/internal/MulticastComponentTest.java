package ipoib.mcast.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.Proxy;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.osgi.service.log.Logger;

/**
 * For PID ipoib.mcast: every property is checked against the metatype before it
 * is converted (DS would take 2^32 + 1 for an int as 1, and "abc" with no property name); a
 * refused configuration is logged at WARN with the property, the value and the range, and the
 * previous configuration stays in force (without Configuration Admin nothing is written back).
 */
class MulticastComponentTest {
    private final List<String> errors = new CopyOnWriteArrayList<>();
    private final Logger log = (Logger) Proxy.newProxyInstance(Logger.class.getClassLoader(), new Class<?>[] {Logger.class},
            (proxy, method, args) -> {
                if (method.getName().equals("warn")) {
                    errors.add(String.valueOf(args[0]));
                }
                return method.getReturnType() == boolean.class ? Boolean.FALSE : null;
            });

    @Test
    void refusedValuesNameThePropertyTheValueAndTheRangeAndThePreviousConfigurationStays() {
        MulticastComponent c = new MulticastComponent(Map.of("pendingFramesPerGroup", 32, "auditSeconds", "30"), null, log);
        try {
            assertEquals(new McastSettings(32, 1024, 30_000), c.settings());
            String[][] refused = {
                    {"pendingFramesPerGroup", "4294967297", "1..4096"},
                    {"maxGroupsPerLink", "abc", "16..65536"},
                    {"auditSeconds", "4", "5..3600"},
                    {"auditSeconds", "3601", "5..3600"}};
            for (String[] r : refused) {
                errors.clear();
                Object value = r[1].equals("4294967297") ? (Object) 4_294_967_297L : r[1];
                c.modified(Map.of(r[0], value));
                assertEquals(new McastSettings(32, 1024, 30_000), c.settings(), r[0] + "=" + r[1] + " is refused");
                assertEquals(1, errors.size(), errors.toString());
                String m = errors.get(0);
                assertTrue(m.contains("ipoib.mcast") && m.contains("'" + r[0] + "'") && m.contains(r[1]) && m.contains(r[2])
                        && m.contains("configuration refused"), m);
            }
            c.modified(Map.of("pendingFramesPerGroup", 4096L, "maxGroupsPerLink", "16", "auditSeconds", 3600));
            assertEquals(new McastSettings(4096, 16, 3_600_000), c.settings());
        } finally {
            c.deactivate();
        }
    }

    @Test
    void aRefusedConfigurationAtActivationStartsWithTheDeclaredDefaults() {
        MulticastComponent c = new MulticastComponent(Map.of("auditSeconds", "soon"), null, log);
        try {
            assertEquals(new McastSettings(64, 1024, 60_000), c.settings());
            assertTrue(errors.get(0).contains("'auditSeconds'") && errors.get(0).contains("configuration refused"),
                    errors.toString());
        } finally {
            c.deactivate();
        }
    }
}
