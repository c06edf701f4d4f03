package ipoib.launcher;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** What Tab offers, word by word, for commands of the README's command reference. */
class CommandCompleterTest {

    private final CommandCompleter completer = new CommandCompleter(
            () -> Set.of("ipoib:links", "ipoib:log", "ipoib:neigh", "fabric:fault", "gogo:echo"),
            new ArgumentCandidates(() -> List.of("ib0_1_ffff", "ib1_1_ffff")));

    @Test
    void theFirstWordIsACommandWithItsScopeOrWithout() {
        List<String> words = completer.words(List.of("ipoib:li"), 0);
        assertTrue(words.containsAll(List.of("ipoib:links", "ipoib:log", "links", "echo", "gogo:echo")), words.toString());
    }

    @Test
    void anInterfaceCommandOffersTheInterfaces() {
        assertEquals(List.of("ib0_1_ffff", "ib1_1_ffff", "--json"), completer.words(List.of("ipoib:links", ""), 1));
        assertEquals(List.of("ib0_1_ffff", "ib1_1_ffff", "--json"), completer.words(List.of("links", ""), 1));
        assertEquals(List.of("--json"), completer.words(List.of("ipoib:links", "ib0_1_ffff", ""), 2));
    }

    @Test
    void subcommandsComeFirstThenTheInterfaceAfterThem() {
        assertEquals(List.of("list", "flush", "add", "del", "ib0_1_ffff", "ib1_1_ffff", "--json"),
                completer.words(List.of("ipoib:neigh", ""), 1));
        assertEquals(List.of("ib0_1_ffff", "ib1_1_ffff"), completer.words(List.of("ipoib:neigh", "flush", ""), 2));
        assertEquals(List.of("ib0_1_ffff", "ib1_1_ffff", "--json"), completer.words(List.of("ipoib:neigh", "list", ""), 2));
    }

    @Test
    void faultKindsAndLogLevels() {
        assertTrue(completer.words(List.of("fabric:fault", "lo"), 1).containsAll(List.of("loss", "sa-rmpp-loss")));
        assertEquals(List.of("ERROR", "WARN", "INFO", "DEBUG", "TRACE"),
                completer.words(List.of("ipoib:log", "framework", ""), 2));
    }

    @Test
    void aFabricListingOffersTheJsonFlag() {
        assertEquals(List.of("--json"), completer.words(List.of("fabric:ports", "--j"), 1));
    }

    @Test
    void aCommandOutsideTheTableGetsNothing() {
        assertEquals(List.of(), completer.words(List.of("gogo:echo", ""), 1));
    }
}
