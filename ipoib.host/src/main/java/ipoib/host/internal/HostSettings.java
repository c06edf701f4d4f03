package ipoib.host.internal;

import ipoib.runtime.ConfigCheck;
import java.util.Map;
import java.util.function.Consumer;

/**
 * The configuration of PID {@value HostComponent#PID} as the engine runs it: every property is
 * checked against its one declaration in {@link HostConfiguration} (through the metatype bnd
 * generates from it) before anything is applied; a refused configuration is logged with the
 * property, the value and what is allowed, and the one in force (at activation: the defaults)
 * stays.
 */
final class HostSettings {
    private static final ConfigCheck CHECK = ConfigCheck.of(HostConfiguration.class);

    private final IpStack stack;
    private final Consumer<String> error;
    private int ttl = PacketWriter.DEFAULT_TTL;
    private boolean answerEcho = true;

    HostSettings(IpStack stack, Consumer<String> error) {
        this.stack = stack;
        this.error = error;
        stack.ttl(ttl);
        stack.answerEcho(answerEcho);
    }

    /**
     * Applies a configuration, or refuses it whole and keeps the one in force.
     *
     * @return whether it was applied
     */
    synchronized boolean apply(Map<String, ?> properties) {
        String refusal = CHECK.problems(properties);
        if (refusal != null) {
            error.accept(refusal + "; " + HostComponent.PID + " keeps " + inForce());
            return false;
        }
        Object t = properties.get("ttl");
        Object a = properties.get("answerEcho");
        ttl = t == null ? PacketWriter.DEFAULT_TTL
                : t instanceof Number n ? n.intValue() : Integer.parseInt(t.toString().strip());
        answerEcho = a == null || (a instanceof Boolean b ? b : Boolean.parseBoolean(a.toString().strip()));
        stack.ttl(ttl);
        stack.answerEcho(answerEcho);
        return true;
    }

    /** The values in force, e.g. {@code ttl=64 answerEcho=true}. */
    synchronized String inForce() {
        return "ttl=" + ttl + " answerEcho=" + answerEcho;
    }
}
