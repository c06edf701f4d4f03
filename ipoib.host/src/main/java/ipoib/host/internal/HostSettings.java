package ipoib.host.internal;

import ipoib.runtime.ConfigCheck;
import java.util.Map;
import java.util.function.BiConsumer;

/**
 * The configuration of PID {@value HostComponent#PID} as the engine runs it: every property is
 * checked against its one declaration in {@link HostConfiguration} (through the metatype bnd
 * generates from it) before anything is applied; a refused configuration is reported with the
 * property, the value and what is allowed, and the one in force (at activation: the defaults)
 * stays.
 */
final class HostSettings {
    private static final ConfigCheck CHECK = ConfigCheck.of(HostConfiguration.class);

    private final IpStack stack;
    /** Told of a refused configuration: its properties and why (property, value, what is allowed, what stays). */
    private final BiConsumer<Map<String, ?>, String> refused;
    private int ttl = PacketWriter.DEFAULT_TTL;
    private boolean answerEcho = true;
    private boolean echoIgnoreBroadcasts = true;
    private boolean echoIgnoreMulticast6;

    HostSettings(IpStack stack, BiConsumer<Map<String, ?>, String> refused) {
        this.stack = stack;
        this.refused = refused;
        stack.ttl(ttl);
        stack.answerEcho(answerEcho);
        stack.echoToGroups(echoIgnoreBroadcasts, echoIgnoreMulticast6);
    }

    /**
     * Applies a configuration, or refuses it whole and keeps the one in force.
     *
     * @return whether it was applied
     */
    synchronized boolean apply(Map<String, ?> properties) {
        String refusal = CHECK.problemsOfDeclared(properties);
        if (refusal != null) {
            refused.accept(properties, refusal + "; " + HostComponent.PID + " keeps " + inForce());
            return false;
        }
        Object t = properties.get("ttl");
        ttl = t == null ? PacketWriter.DEFAULT_TTL
                : t instanceof Number n ? n.intValue() : Integer.parseInt(t.toString().strip());
        answerEcho = flag(properties.get("answerEcho"), true);
        echoIgnoreBroadcasts = flag(properties.get("echoIgnoreBroadcasts"), true);
        echoIgnoreMulticast6 = flag(properties.get("echoIgnoreMulticast6"), false);
        stack.ttl(ttl);
        stack.answerEcho(answerEcho);
        stack.echoToGroups(echoIgnoreBroadcasts, echoIgnoreMulticast6);
        return true;
    }

    /** The values in force, e.g. {@code ttl=64 answerEcho=true ...}. */
    synchronized String inForce() {
        return "ttl=" + ttl + " answerEcho=" + answerEcho + " echoIgnoreBroadcasts=" + echoIgnoreBroadcasts
                + " echoIgnoreMulticast6=" + echoIgnoreMulticast6;
    }

    /** A boolean property the metatype check let through ("true"/"false" in any case, or a Boolean). */
    private static boolean flag(Object value, boolean absent) {
        return value == null ? absent : value instanceof Boolean b ? b : Boolean.parseBoolean(value.toString().strip());
    }
}
