package ipoib.netdev.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

class HostsNetnsPrefixTest {
    @Test
    void withoutThePropertyTheHostsAreH1ToHn() {
        assertEquals("h", HostsSetup.netnsPrefix(null));
        assertEquals("h", HostsSetup.netnsPrefix(" "));
    }

    @Test
    void aPrefixNamesTheNamespaces() {
        assertEquals("osm", HostsSetup.netnsPrefix(" osm "));
        assertEquals("a".repeat(61), HostsSetup.netnsPrefix("a".repeat(61)));
    }

    @Test
    void aPrefixThatWouldNotMakeANamespaceNameIsRefusedSayingWhatIsAllowed() {
        for (String bad : new String[] {"a/b", "h 1", "a".repeat(62)}) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> HostsSetup.netnsPrefix(bad));
            assertEquals("framework property ipoib.hosts.netns is '" + bad + "': allowed 1..61 characters of A-Z a-z "
                    + "0-9 _ . - (the hosts' namespaces are PREFIX1..PREFIXN)", e.getMessage());
        }
    }
}
