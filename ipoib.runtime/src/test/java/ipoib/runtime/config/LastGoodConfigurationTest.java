package ipoib.runtime.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * What happens to a configuration a component refused after Configuration Admin stored it: one
 * WARN line, and the store holds the configuration in force again (or none, when none was in force).
 */
class LastGoodConfigurationTest {
    private static final String PID = "ipoib.sample";
    private final FakeConfigurationAdmin cm = new FakeConfigurationAdmin();
    private final List<String> warnings = new ArrayList<>();
    private final LastGoodConfiguration lastGood = new LastGoodConfiguration(warnings::add);

    LastGoodConfigurationTest() {
        lastGood.admin(cm.admin);
    }

    @Test
    void aRefusedUpdateIsReplacedByTheConfigurationInForceAndLoggedOnce() {
        cm.store(PID, "ttl", 7);
        lastGood.accepted(cm.delivered(PID, "ttl", 64, "gratuitous", true));
        assertEquals(Map.of("ttl", 7, "gratuitous", true), lastGood.inForce(), "without what DS adds, with the defaults");
        cm.store(PID, "ttl", 300);
        lastGood.refused(cm.delivered(PID, "ttl", 64, "gratuitous", true), "invalid ipoib.sample property 'ttl' value 300");

        assertEquals(Map.of("service.pid", PID, "ttl", 7), cm.stored.get(PID), "only the keys stored: defaults stay defaults");
        assertEquals(List.of("ipoib.sample: configuration refused: invalid ipoib.sample property 'ttl' value 300; "
                + "the configuration in force stays and is stored again"), warnings);
    }

    /**
     * The refusal is told before its line is logged, and after the store is put right: whoever
     * waits for the line and then lists the configuration sees the refusal beside the value in force.
     */
    @Test
    void theRefusalIsToldAfterTheWriteBackAndBeforeItsLine() {
        List<String> order = new ArrayList<>();
        LastGoodConfiguration told = new LastGoodConfiguration(line -> order.add("line"), verdict -> verdict.accept(
                new ipoib.api.config.ConfigurationVerdicts() {
                    @Override
                    public void accepted(String pid, Map<String, Object> properties) {
                        order.add("accepted");
                    }

                    @Override
                    public void refused(String pid, Map<String, Object> properties, String why, Map<String, Object> inForce) {
                        order.add("refused, stored ttl=" + cm.stored.get(PID).get("ttl"));
                    }
                }));
        told.admin(cm.admin);
        cm.store(PID, "ttl", 7);
        told.accepted(cm.delivered(PID));
        cm.store(PID, "ttl", 300);
        told.refused(cm.delivered(PID), "invalid ipoib.sample property 'ttl' value 300");
        assertEquals(List.of("accepted", "refused, stored ttl=7", "line"), order);
    }

    @Test
    void anUnknownPropertyOfTheRefusedUpdateIsNotWrittenBack() {
        cm.store(PID, "ttl", 7);
        lastGood.accepted(cm.delivered(PID));
        cm.store(PID, "ttl", 7, "nosuch", "1");
        lastGood.refused(cm.delivered(PID), "unknown ipoib.sample property 'nosuch'");
        assertEquals(Map.of("service.pid", PID, "ttl", 7), cm.stored.get(PID));
    }

    @Test
    void anUpdateThatLeftOutStoredKeysIsReplacedByAllThatWasStored() {
        cm.store(PID, "ttl", 7, "mtu", 2044);
        lastGood.accepted(cm.delivered(PID, "gratuitous", true));
        cm.store(PID, "mtu", 5);
        lastGood.refused(cm.delivered(PID, "ttl", 64, "gratuitous", true), "bad mtu");
        assertEquals(Map.of("service.pid", PID, "ttl", 7, "mtu", 2044), cm.stored.get(PID),
                "what ran, not the defaults of the keys the refused update left out");
    }

    @Test
    void theWriteBackComingBackIsKnownOnceAndAUsersEqualUpdateIsNot() {
        cm.store(PID, "ttl", 7);
        lastGood.accepted(cm.delivered(PID));
        cm.store(PID, "ttl", 300);
        lastGood.refused(cm.delivered(PID), "bad ttl");
        assertTrue(lastGood.isOwnWriteBack(cm.delivered(PID)), "the configuration stored again, delivered");
        assertTrue(lastGood.isInForce(cm.delivered(PID)));
        assertFalse(lastGood.isOwnWriteBack(cm.delivered(PID)), "the same values stored again by a user");
    }

    @Test
    void aFactoryConfigurationRefusedBeforeAnyWasInForceIsDeleted() {
        cm.store(PID, "service.factoryPid", "ipoib.sample.factory", "ttl", 0);
        lastGood.refused(cm.delivered(PID), "invalid ipoib.sample property 'ttl' value 0");
        assertFalse(cm.stored.containsKey(PID));
        assertEquals(List.of("delete " + PID), cm.calls);
        assertTrue(warnings.get(0).endsWith("; the configuration is deleted (none was in force before it)"), warnings.get(0));
    }

    @Test
    void aSingletonConfigurationRefusedWhileTheDefaultsRanIsEmptiedNotDeleted() {
        lastGood.accepted(Map.of("component.name", "sample", "ttl", 64));
        assertNull(lastGood.inForce(), "without a service.pid the component runs with its defaults");
        cm.store(PID, "ttl", 0);
        lastGood.refused(cm.delivered(PID), "bad ttl");
        assertEquals(Map.of("service.pid", PID), cm.stored.get(PID), "emptied: the defaults stay");
        assertEquals(List.of("update " + PID), cm.calls);
        assertTrue(warnings.get(0).endsWith("; its values are cleared, the defaults stay in force"), warnings.get(0));
    }

    @Test
    void anUpdateThatCameInBetweenIsNotOverwritten() {
        cm.store(PID, "ttl", 7);
        lastGood.accepted(cm.delivered(PID));
        cm.store(PID, "ttl", 300);
        Map<String, Object> refused = cm.delivered(PID);
        cm.store(PID, "ttl", 9); // stored after the refused one, delivered next
        lastGood.refused(refused, "bad ttl");
        assertEquals(Map.of("service.pid", PID, "ttl", 9), cm.stored.get(PID));
        assertEquals(List.of(), cm.calls);
        assertEquals(List.of("ipoib.sample: configuration refused: bad ttl; the configuration in force stays"), warnings);
    }

    @Test
    void withoutConfigurationAdminTheRefusalIsOnlyLogged() {
        LastGoodConfiguration alone = new LastGoodConfiguration(warnings::add);
        alone.accepted(Map.of("service.pid", PID, "ttl", 7));
        alone.refused(Map.of("service.pid", PID, "ttl", 300), "bad ttl");
        assertEquals(List.of("ipoib.sample: configuration refused: bad ttl; the configuration in force stays"), warnings);
    }

    @Test
    void aPidThatIsNoFilterValueIsNotLookedUp() {
        lastGood.accepted(Map.of("service.pid", "a(b", "ttl", 7));
        lastGood.refused(Map.of("service.pid", "a(b", "ttl", 300), "bad ttl");
        assertEquals(List.of(), cm.calls);
        assertEquals(1, warnings.size());
    }
}
