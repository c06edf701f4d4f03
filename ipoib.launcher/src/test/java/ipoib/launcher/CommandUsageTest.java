package ipoib.launcher;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.lang.reflect.Proxy;
import java.util.Map;
import org.apache.felix.service.command.CommandSession;
import org.apache.felix.service.command.Descriptor;
import org.junit.jupiter.api.Test;

class CommandUsageTest {

    /** A command service as a bundle registers it. */
    public static final class Commands {
        public String hcas() {
            return "";
        }

        public String port(@Descriptor("device name") String device, @Descriptor("port number") String port) {
            return "";
        }

        public String port() {
            return "";
        }

        public String stats(@Descriptor("interface name (optional)") String... names) {
            return "";
        }
    }

    /** What Gogo's session returns for a command name: a proxy with getTarget/ungetTarget. */
    public static final class CommandProxy {
        int ungets;

        public Object getTarget() {
            return new Commands();
        }

        public void ungetTarget() {
            ungets++;
        }
    }

    private final CommandProxy proxy = new CommandProxy();
    private final CommandSession session = (CommandSession) Proxy.newProxyInstance(getClass().getClassLoader(),
            new Class<?>[] {CommandSession.class}, (p, method, args) -> method.getName().equals("get")
                    ? Map.of("fabric:hcas", proxy, "verbs:port", proxy, "ipoib:stats", proxy).get((String) args[0])
                    : null);

    @Test
    void aCommandWithoutParametersGivenOneGetsItsUsage() {
        IllegalArgumentException gogo = new IllegalArgumentException("Cannot coerce hcas(Token) to any of [()]");
        assertEquals("fabric:hcas: wrong arguments 'x'\nusage: fabric:hcas",
                CommandUsage.describe(session, "fabric:hcas x", gogo));
        assertEquals(1, proxy.ungets, "the command service is released");
    }

    @Test
    void everyFormOfAnOverloadedCommandIsShownWithItsParameters() {
        IllegalArgumentException gogo = new IllegalArgumentException(
                "Cannot coerce port(Token, Token, Token) to any of [(String, String), ()]");
        assertEquals("verbs:port: wrong arguments 'a b c'\nusage: verbs:port\n       verbs:port <device name> <port number>",
                CommandUsage.describe(session, "verbs:port a b c | grep x", gogo));
    }

    @Test
    void varargsAreOptional() {
        assertEquals(java.util.List.of("ipoib:stats [interface name (optional)]"),
                CommandUsage.forms(session, "ipoib:stats"));
    }

    @Test
    void otherErrorsKeepTheirMessage() {
        assertEquals("expected at most one interface name\nusage: ipoib:stats [interface]", CommandUsage.describe(session,
                "ipoib:stats a b", new IllegalArgumentException("expected at most one interface name\nusage: ipoib:stats [interface]")));
        assertEquals("Command not found: nosuch", CommandUsage.describe(session, "nosuch",
                new IllegalArgumentException("Command not found: nosuch")));
    }
}
