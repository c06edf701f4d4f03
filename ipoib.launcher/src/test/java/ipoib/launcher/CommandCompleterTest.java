package ipoib.launcher;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** What Tab offers, word by word, from the forms the commands declare (as the project's command services do). */
class CommandCompleterTest {
    private static final List<String> INTERFACES = List.of("ib0_1_ffff", "ib1_1_ffff");

    private final CommandCompleter completer = new CommandCompleter(() -> Map.of(
            "ipoib:links", CommandForms.of("links", List.of("links <interface> --json")),
            "ipoib:log", CommandForms.of("log", List.of("log ERROR|WARN|INFO|DEBUG|TRACE",
                    "log framework ERROR|WARN|INFO|DEBUG|TRACE")),
            "ipoib:neigh", CommandForms.of("neigh", List.of("neigh list <interface> --json", "neigh <interface> --json",
                    "neigh flush <interface>", "neigh add <interface> <address> <link-layer-address>",
                    "neigh del <interface> <address>")),
            "fabric:fault", CommandForms.of("fault", List.of("fault loss|duplicate|sa-rmpp-loss <value> <device/port>")),
            "fabric:topology", CommandForms.of("topology", List.of("topology --net", "topology --json")),
            "fabric:ports", CommandForms.of("ports", List.of("ports --json")),
            "fabric:clear", CommandForms.of("clear", List.of())),
            () -> Set.of("gogo:echo"), () -> INTERFACES);

    @Test
    void theFirstWordIsACommandWithItsScopeOrWithout() {
        List<String> words = completer.words(List.of("ipoib:li"), 0);
        assertTrue(words.containsAll(List.of("ipoib:links", "ipoib:log", "links", "clear", "fabric:clear", "echo",
                "gogo:echo")), words.toString());
    }

    @Test
    void anInterfaceCommandOffersTheInterfaces() {
        assertEquals(List.of("ib0_1_ffff", "ib1_1_ffff", "--json"), completer.words(List.of("ipoib:links", ""), 1));
        assertEquals(List.of("ib0_1_ffff", "ib1_1_ffff", "--json"), completer.words(List.of("links", ""), 1));
        assertEquals(List.of("--json"), completer.words(List.of("ipoib:links", "ib0_1_ffff", ""), 2));
        assertEquals(List.of("ib0_1_ffff", "ib1_1_ffff"), completer.words(List.of("ipoib:links", "--json", ""), 2),
                "a flag is offered once");
        assertEquals(List.of(), completer.words(List.of("ipoib:links", "ib9", ""), 2), "not an interface: no form fits");
    }

    @Test
    void subcommandsComeFirstThenTheInterfaceAfterThem() {
        assertEquals(List.of("list", "ib0_1_ffff", "ib1_1_ffff", "flush", "add", "del", "--json"),
                completer.words(List.of("ipoib:neigh", ""), 1));
        assertEquals(List.of("ib0_1_ffff", "ib1_1_ffff"), completer.words(List.of("ipoib:neigh", "flush", ""), 2));
        assertEquals(List.of("ib0_1_ffff", "ib1_1_ffff", "--json"), completer.words(List.of("ipoib:neigh", "list", ""), 2));
        assertEquals(List.of(), completer.words(List.of("ipoib:neigh", "add", "ib0_1_ffff", "10.0.0.2", ""), 4),
                "a placeholder takes any word and offers none");
        assertEquals(List.of(), completer.words(List.of("ipoib:neigh", "flush", "--json", ""), 3),
                "flush has no --json: with it typed, no form fits");
    }

    @Test
    void faultKindsAndLogLevels() {
        assertTrue(completer.words(List.of("fabric:fault", "lo"), 1).containsAll(List.of("loss", "sa-rmpp-loss")));
        assertEquals(List.of("ERROR", "WARN", "INFO", "DEBUG", "TRACE", "framework"),
                completer.words(List.of("ipoib:log", ""), 1));
        assertEquals(List.of("ERROR", "WARN", "INFO", "DEBUG", "TRACE"),
                completer.words(List.of("ipoib:log", "framework", ""), 2));
    }

    @Test
    void exclusiveFlagsAreSeparateForms() {
        assertEquals(List.of("--net", "--json"), completer.words(List.of("fabric:topology", ""), 1));
        assertEquals(List.of(), completer.words(List.of("fabric:topology", "--net", ""), 2));
        assertEquals(List.of("--json"), completer.words(List.of("fabric:ports", "--j"), 1));
    }

    @Test
    void aCommandWithoutFormsGetsNothing() {
        assertEquals(List.of(), completer.words(List.of("gogo:echo", ""), 1));
        assertEquals(List.of(), completer.words(List.of("clear", ""), 1));
        assertEquals(List.of(), completer.words(List.of("nosuch", ""), 1));
    }
}
