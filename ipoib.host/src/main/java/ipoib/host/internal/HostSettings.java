package ipoib.host.internal;

import java.util.Map;
import java.util.function.Consumer;

/**
 * The configuration of PID {@value HostComponent#PID} as the engine runs it: every property is
 * checked against the declaration in {@link HostConfiguration} before anything is applied; a
 * refused configuration is logged with the property, the value and what is allowed, and the
 * previous one (at activation: the defaults) stays in force.
 */
final class HostSettings {
    private final IpStack stack;
    private final Consumer<String> error;
    private final Consumer<String> info;
    private int ttl = PacketWriter.DEFAULT_TTL;
    private boolean answerEcho = true;

    HostSettings(IpStack stack, Consumer<String> error, Consumer<String> info) {
        this.stack = stack;
        this.error = error;
        this.info = info;
    }

    void activate(Map<String, Object> properties) {
        stack.ttl(ttl);
        stack.answerEcho(answerEcho);
        modify(properties);
    }

    /** Applies the configuration, or refuses it whole and keeps the one in force. */
    synchronized boolean modify(Map<String, Object> properties) {
        String refusal = ConfigRules.HOST.check(HostComponent.PID, properties);
        if (refusal != null) {
            error.accept(refusal + "; keeping ttl=" + ttl + " answerEcho=" + answerEcho);
            return false;
        }
        ttl = ConfigRules.intValue(properties, "ttl", PacketWriter.DEFAULT_TTL);
        answerEcho = ConfigRules.booleanValue(properties, "answerEcho", true);
        stack.ttl(ttl);
        stack.answerEcho(answerEcho);
        return true;
    }

    synchronized String describe() {
        return "ttl=" + ttl + " answerEcho=" + answerEcho;
    }
}
