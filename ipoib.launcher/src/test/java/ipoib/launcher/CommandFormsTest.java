package ipoib.launcher;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The forms a command service declares: what they offer, and the declarations refused. */
class CommandFormsTest {

    @Test
    void formsOfOtherFunctionsOfTheServiceAreSkipped() {
        CommandForms links = CommandForms.of("links", List.of("links <interface> --json", "stats --json"));
        assertEquals(List.of("ib0", "--json"), links.candidates(List.of(), () -> List.of("ib0")));
        assertTrue(CommandForms.of("cm", List.of("links <interface>")).isEmpty());
    }

    @Test
    void theInterfacesAreAskedOnlyWhenAFormNeedsThem() {
        CommandForms sa = CommandForms.of("sa", List.of("sa sendOnlyFullMember true|false", "sa --json"));
        assertEquals(List.of("sendOnlyFullMember", "--json"), sa.candidates(List.of(), () -> {
            throw new AssertionError("asked for the interfaces");
        }));
        assertEquals(List.of("true", "false"), sa.candidates(List.of("sendOnlyFullMember"), List::of));
    }

    @Test
    void aBlankFormOrAnEmptyAlternativeIsRefused() {
        assertEquals("a completion form is blank: allowed '<function> <word>...'",
                assertThrows(IllegalArgumentException.class, () -> CommandForms.of("x", List.of(" "))).getMessage());
        assertEquals("completion form 'router <interface> on|' has an empty alternative in 'on|': allowed words "
                + "separated by '|'", assertThrows(IllegalArgumentException.class,
                () -> CommandForms.of("router", List.of("router <interface> on|"))).getMessage());
    }
}
