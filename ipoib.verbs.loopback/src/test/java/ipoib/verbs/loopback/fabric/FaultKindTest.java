package ipoib.verbs.loopback.fabric;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** Fault kinds by their words: parsing, the lists in messages, and which setting each belongs to. */
class FaultKindTest {

    @Test
    void everyWordParsesToItsKindInAnyCase() {
        assertEquals(FaultKind.LOSS, FaultKind.parse("loss"));
        assertEquals(FaultKind.SA_RMPP_LOSS, FaultKind.parse("SA-RMPP-LOSS"));
        assertEquals(FaultKind.TRAP_LOSS, FaultKind.parse(" trap-loss "));
        for (FaultKind k : FaultKind.values()) {
            assertEquals(k, FaultKind.parse(k.word()));
        }
    }

    @Test
    void anUnknownWordNamesItAndListsEveryKindByOwner() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> FaultKind.parse("sa_drop"));
        assertEquals("unknown fault 'sa_drop': allowed loss, duplicate, reorder, delay, corrupt (a port's), "
                + "sa-drop, sa-delay, sa-error, sa-status, trap-loss, sa-rmpp-loss (the SA's)", e.getMessage());
    }

    @Test
    void theUsageAlternativesAreSeparatedByBars() {
        assertEquals("loss|duplicate|reorder|delay|corrupt", FaultKind.alternatives(false));
        assertEquals("sa-drop|sa-delay|sa-error|sa-status|trap-loss|sa-rmpp-loss", FaultKind.alternatives(true));
    }

    @Test
    void theSaKindsAreTheOnesWithSaOrTrapInTheirWord() {
        for (FaultKind k : FaultKind.values()) {
            assertEquals(k.word().startsWith("sa-") || k.word().startsWith("trap-"), k.ofSubnetAdministrator(), k.word());
        }
    }

    @Test
    void eachSettingTakesItsOwnKindsAndRefusesTheOthers() {
        for (FaultKind k : FaultKind.values()) {
            if (k.ofSubnetAdministrator()) {
                IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Faults.NONE.with(k, 1));
                assertTrue(e.getMessage().startsWith("fault '" + k.word() + "' is the SA's, not a port's"), e.getMessage());
                assertFalse(SaFaults.NONE.with(k, 2).equals(SaFaults.NONE), k.word()); // 2: not the default status
            } else {
                IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> SaFaults.NONE.with(k, 1));
                assertTrue(e.getMessage().startsWith("fault '" + k.word() + "' is a port's, not the SA's"), e.getMessage());
                assertTrue(Faults.NONE.with(k, 1).any(), k.word());
                assertTrue(Faults.NONE.with(k, 1).toString().contains(k.word() + "=1"), k.word());
            }
        }
    }

    @Test
    void anOutOfRangeValueNamesTheKindAndTheRange() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> Faults.NONE.with(FaultKind.REORDER, 101));
        assertEquals("invalid fault 'reorder' value 101: allowed 0..100 (percent)", e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> SaFaults.NONE.with(FaultKind.SA_DELAY, 60_001));
        assertEquals("invalid fault 'sa-delay' value 60001: allowed 0..60000 ms", e.getMessage());
        assertFalse(Faults.NONE.any());
    }
}
