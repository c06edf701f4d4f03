package ipoib.runtime.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Hashtable;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class StoredPropertiesTest {

    @Test
    void whatConfigurationAdminAndDeclarativeServicesAddIsLeftOut() {
        Map<String, Object> given = Map.of("service.pid", "p", "service.factoryPid", "f", "component.name", "c",
                "component.id", 3L, "osgi.ds.satisfying.condition.target", "(x=y)", "felix.fileinstall.filename", "f.cfg",
                ":org.apache.felix.configadmin.revision:", 2L, "ttl", 7, "provider.target", "(a=b)");
        assertEquals(Map.of("ttl", 7, "provider.target", "(a=b)"), StoredProperties.of(given));
    }

    @Test
    void aDictionaryOrNoneReadsTheSame() {
        Hashtable<String, Object> d = new Hashtable<>(Map.of("service.pid", "p", "ttl", 7));
        assertEquals(Map.of("ttl", 7), StoredProperties.of((java.util.Dictionary<String, Object>) d));
        assertEquals(Map.of(), StoredProperties.of((java.util.Dictionary<String, ?>) null));
    }

    @Test
    void storedIsWithinWhatWasGivenOverTheDefaults() {
        Map<String, Object> given = Map.of("ttl", 7, "gratuitous", true, "members", new String[] {"a", "b"});
        assertTrue(StoredProperties.within(Map.of("ttl", 7), given));
        assertTrue(StoredProperties.within(Map.of("members", List.of("a", "b")), given), "an array and a list of the same elements");
        assertTrue(StoredProperties.within(Map.of(), given));
        assertFalse(StoredProperties.within(Map.of("ttl", 8), given));
        assertFalse(StoredProperties.within(Map.of("other", 1), given));
        assertFalse(StoredProperties.within(Map.of("members", new String[] {"b", "a"}), given), "order counts");
    }

    @Test
    void sameNeedsTheSameKeysAndElementwiseEqualValues() {
        assertTrue(StoredProperties.same(Map.of("m", new int[] {1, 2}), Map.of("m", List.of(1, 2))));
        assertFalse(StoredProperties.same(Map.of("m", 1), Map.of("m", 1, "n", 2)));
        assertFalse(StoredProperties.same(Map.of("m", "1"), Map.of("m", 1)), "a text is no number");
    }
}
