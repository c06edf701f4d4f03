package ipoib.host.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ipoib.api.LinkAddress;
import ipoib.api.host.AddressOrigin;
import ipoib.api.resolve.NeighbourResolver;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** {@code ipoib:resolve} and {@code ipoib:neigh} through Gogo's processor: options and usage errors. */
class ShellCommandsTest {
    final AddressTable table = new AddressTable((a, c) -> { });
    final IpStack stack = new IpStack(table, m -> { });
    final CommandContext context = new CommandContext();
    final List<String> calls = new ArrayList<>();

    /** Records the calls the commands make. */
    final class Recorder extends IpStackTest.Resolver {
        @Override
        public void addPermanent(String l, InetAddress a, LinkAddress la) {
            calls.add("add " + l + " " + a.getHostAddress());
        }

        @Override
        public int flush(String linkName) {
            calls.add("flush " + linkName);
            return 2;
        }
    }

    ShellCommandsTest() throws Exception {
        IpStackTest.Link a = new IpStackTest.Link("a");
        stack.addLink(a);
        context.links.add(a);
        table.add("a", InetAddress.getByName("10.0.0.1"), 24, AddressOrigin.MANUAL, null);
        context.resolvers.add(Map.entry(new Recorder(), NeighbourResolver.IPV4));
    }

    static void assertUsage(GogoRunner.Result r, String line, String message, String usage) {
        assertInstanceOf(IllegalArgumentException.class, r.error(), line);
        assertTrue(r.error().getMessage().contains(message), line + ": " + r.error().getMessage());
        assertTrue(r.error().getMessage().contains("usage: " + usage), line + ": " + r.error().getMessage());
    }

    @Test
    void resolveTakesItsOptionsFromGogo() {
        try (GogoRunner gogo = new GogoRunner("ipoib", "resolve", new ResolveCommand(stack, context))) {
            String[][] cases = {
                    {"ipoib:resolve", "no destination address"},
                    {"ipoib:resolve -W never 10.0.0.2", "option -W value 'never' is not a number"},
                    {"ipoib:resolve -W 0 10.0.0.2", "option -W value 0 outside 0.05..600"},
                    {"ipoib:resolve -I b 10.0.0.2", "no interface 'b' (interfaces: a)"},
                    {"ipoib:resolve 10.9.9.9", "no interface has an address on the way to 10.9.9.9"},
            };
            for (String[] c : cases) {
                assertUsage(gogo.run(c[0]), c[0], c[1], "ipoib:resolve");
            }
        }
    }

    @Test
    void neighSubcommandsReachTheResolver() {
        try (GogoRunner gogo = new GogoRunner("ipoib", "neigh", new NeighCommand(context))) {
            assertEquals("flushed 2 entries of a", gogo.run("ipoib:neigh flush a").value());
            String added = (String) gogo.run("ipoib:neigh add a 10.0.0.9 "
                    + "00:00:00:48:fe:80:00:00:00:00:00:00:00:02:c9:03:00:00:02:01").value();
            assertTrue(added.startsWith("added permanent entry 10.0.0.9 -> "), added);
            assertEquals(List.of("flush a", "add a 10.0.0.9"), calls);
            assertUsage(gogo.run("ipoib:neigh add a 10.0.0.9 00:11"), "add", "invalid link address", "ipoib:neigh");
            assertUsage(gogo.run("ipoib:neigh flush nosuch"), "flush", "no interface 'nosuch'", "ipoib:neigh");
            assertUsage(gogo.run("ipoib:neigh list a b"), "list", "too many arguments", "ipoib:neigh");
            assertUsage(gogo.run("ipoib:neigh frob a"), "frob", "unknown subcommand 'frob'", "ipoib:neigh");
            assertEquals("no neighbour entries on a", gogo.run("ipoib:neigh a").value());
        }
    }
}
