package ipoib.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ConfigCheckTest {
    private final ConfigCheck check = ConfigCheck.of("ipoib.runtime.SampleConfiguration", getClass().getClassLoader());

    @Test
    void readsTheDesignatedPidAndTheAttributesInOrder() {
        assertEquals("ipoib.sample", check.pid());
        assertEquals(List.of("retransmitMillis", "idleMillis", "ttl", "serviceLevel", "gratuitous", "members", "unbounded"),
                check.attributes().stream().map(ConfigAttribute::id).toList());
        assertEquals("10..60000", check.attribute("retransmitMillis").allowed());
    }

    @Test
    void valuesInsideTheDeclaredRangesPassWhateverTheirJavaType() {
        check.check(Map.of("retransmitMillis", 10, "idleMillis", "86400000", "ttl", 255L, "serviceLevel", "path",
                "gratuitous", "FALSE", "members", new String[] {"loop0", "loop1/1"}, "service.pid", "x.y"));
    }

    @Test
    void aLongPastTheIntRangeIsRefusedNotTruncated() {
        // DS would convert 2^32 + 1 to the int 1: a TTL of 1 that nobody asked for.
        ConfigRefusedException e = assertThrows(ConfigRefusedException.class,
                () -> check.check(Map.of("ttl", 4_294_967_297L)));
        assertEquals("invalid ipoib.sample property 'ttl' value 4294967297 is out of range: allowed 1..255", e.getMessage());
        String big = check.problems(Map.of("unbounded", 4_294_967_297L));
        assertEquals("invalid ipoib.sample property 'unbounded' value 4294967297 is out of range: allowed "
                + Integer.MIN_VALUE + ".." + Integer.MAX_VALUE, big);
    }

    @Test
    void aTextForANumberOrABooleanNamesThePropertyAndWhatIsAllowed() {
        assertEquals("invalid ipoib.sample property 'retransmitMillis' value 'abc' is not a number: allowed 10..60000",
                check.problems(Map.of("retransmitMillis", "abc")));
        assertEquals("invalid ipoib.sample property 'gratuitous' value 'nope' is not a boolean: allowed true or false",
                check.problems(Map.of("gratuitous", "nope")));
        assertEquals("invalid ipoib.sample property 'ttl' value '4.5' is not a whole number: allowed 1..255",
                check.problems(Map.of("ttl", "4.5")));
    }

    @Test
    void choicesAndListElementsAreCheckedAndEveryProblemIsReported() {
        ConfigRefusedException e = assertThrows(ConfigRefusedException.class, () -> check.check(
                Map.of("serviceLevel", "fast", "members", List.of("loop0", "averyveryverylongname"))));
        assertEquals(2, e.problems().size());
        assertTrue(e.problems().contains(
                "invalid ipoib.sample property 'serviceLevel' value 'fast' is not allowed: allowed one of broadcast, path"),
                e.getMessage());
        assertTrue(e.problems().contains("invalid ipoib.sample property 'members' value 'averyveryverylongname' has the "
                + "wrong length 21: allowed a text of 1..8 characters"), e.getMessage());
        assertNull(check.problems(Map.of()));
    }

    @Test
    void aMissingDefinitionSaysWhereItWasLookedFor() {
        IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> ConfigCheck.of("no.such.Configuration", getClass().getClassLoader()));
        assertTrue(e.getMessage().contains("OSGI-INF/metatype/no.such.Configuration.xml"), e.getMessage());
    }
}
