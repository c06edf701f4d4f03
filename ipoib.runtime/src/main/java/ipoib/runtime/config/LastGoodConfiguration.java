package ipoib.runtime.config;

import ipoib.api.config.ConfigurationVerdicts;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Hashtable;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import org.osgi.framework.InvalidSyntaxException;
import org.osgi.service.cm.Configuration;
import org.osgi.service.cm.ConfigurationAdmin;

/**
 * The configuration a component runs with, and what happens to one it refuses. Configuration
 * Admin cannot veto an update: it stores the new properties and then hands them to the
 * component. A component that refuses them keeps running with the configuration in force (its
 * modified method returns without deactivating) and calls {@link #refused}: one WARN line names
 * the PID and the refusal, and the stored configuration is written back to the one in force, so
 * that a refused value is never left stored (it would otherwise reappear at the next restart and
 * make every later update fail on it). A configuration refused before any was in force is deleted
 * (a factory configuration) or emptied (a singleton PID, whose component runs with its defaults).
 *
 * <p>Written back only while the store still holds the refused properties: an update that came
 * in between is the next one to judge, not overwritten.
 *
 * <p>Each verdict, taken or refused, is told to the {@link ipoib.api.config.ConfigurationVerdicts}
 * services, so that whoever stored the configuration learns what became of it.
 */
public final class LastGoodConfiguration {
    private final Consumer<String> warn;
    private final Consumer<Consumer<ConfigurationVerdicts>> report;
    private volatile ConfigurationAdmin admin;
    private volatile Map<String, Object> inForce;
    /** The stored properties of the configuration in force (without the defaults DS added), when known. */
    private volatile Map<String, Object> storedInForce;
    /** What {@link #refused} last stored again, until it comes back through the component's modified method. */
    private volatile Map<String, Object> writtenBack;

    /** @param warn where the one line about a refusal goes (the component's logger at WARN) */
    public LastGoodConfiguration(Consumer<String> warn) {
        this(warn, VerdictReport::tell);
    }

    /** With the verdicts told to {@code report} instead of the framework's services (a test's). */
    LastGoodConfiguration(Consumer<String> warn, Consumer<Consumer<ConfigurationVerdicts>> report) {
        this.warn = warn;
        this.report = report;
    }

    /** Configuration Admin, to write the configuration in force back; without it a refusal is only logged. */
    public void admin(ConfigurationAdmin configurationAdmin) {
        this.admin = configurationAdmin;
    }

    /**
     * The component now runs with these properties (as Declarative Services passed them); without
     * a {@code service.pid} it runs with its defaults, which a refusal returns to by deleting.
     */
    public void accepted(Map<String, ?> properties) {
        inForce = properties.containsKey("service.pid") ? StoredProperties.of(properties) : null;
        storedInForce = inForce == null ? null : storedAs(properties);
        Map<String, Object> taken = inForce;
        if (taken != null) {
            String pid = String.valueOf(properties.get("service.pid"));
        // No PID: nothing is stored, the component runs on its defaults and the launch properties.
        String shown = properties.get("service.pid") == null ? "(defaults and launch properties)" : pid;
            report.accept(v -> v.accepted(pid, taken));
        }
    }

    /**
     * The stored properties these came from (DS adds the defaults to them), while the store still
     * holds them; else null.
     */
    private Map<String, Object> storedAs(Map<String, ?> properties) {
        ConfigurationAdmin cm = admin;
        if (cm == null) {
            return null;
        }
        try {
            Configuration stored = find(cm, String.valueOf(properties.get("service.pid")));
            Map<String, Object> storedNow = stored == null ? null : StoredProperties.of(stored.getProperties());
            return storedNow != null && StoredProperties.within(storedNow, properties) ? storedNow : null;
        } catch (IOException | InvalidSyntaxException | IllegalStateException e) {
            return null;
        }
    }

    /** The properties in force as stored (without what DS adds), or null while none is. */
    public Map<String, Object> inForce() {
        return inForce;
    }

    /**
     * Whether these properties (as DS passed them) are the configuration in force: the write-back
     * after a refusal, or an update that changes nothing, after which nothing needs to restart.
     */
    public boolean isInForce(Map<String, ?> properties) {
        Map<String, Object> good = inForce;
        boolean same = good != null && StoredProperties.same(StoredProperties.of(properties), good);
        if (same && properties.containsKey("service.pid")) {
            // Taken, as it runs already: an update that changes nothing is a verdict too.
            String pid = String.valueOf(properties.get("service.pid"));
        // No PID: nothing is stored, the component runs on its defaults and the launch properties.
        String shown = properties.get("service.pid") == null ? "(defaults and launch properties)" : pid;
            report.accept(v -> v.accepted(pid, good));
        }
        return same;
    }

    /**
     * Whether these properties (as DS passed them) are the configuration this object stored again
     * after a refusal, coming back: true once. A user's update with the same values is not.
     */
    public boolean isOwnWriteBack(Map<String, ?> properties) {
        Map<String, Object> back = writtenBack;
        if (back != null && StoredProperties.same(StoredProperties.of(properties), back)) {
            writtenBack = null;
            return true;
        }
        return false;
    }

    /**
     * The component refused these properties (as DS passed them) for {@code why}: logs one line
     * and writes the configuration in force back, or deletes the configuration when none was in force.
     */
    public void refused(Map<String, ?> properties, String why) {
        List<String> line = new ArrayList<>(1);
        Map<String, Object> kept = restore(properties, why, line::add);
        String pid = String.valueOf(properties.get("service.pid"));
        // No PID: nothing is stored, the component runs on its defaults and the launch properties.
        String shown = properties.get("service.pid") == null ? "(defaults and launch properties)" : pid;
        Map<String, Object> bad = StoredProperties.of(properties);
        // The store put right, the verdict told, then the line: whoever waits for the line (a user,
        // a test) and then updates or lists the configuration races neither.
        report.accept(v -> v.refused(pid, bad, why, kept));
        line.forEach(warn);
    }

    /**
     * Puts the store right and hands the line about the refusal to {@code warn}; returns the
     * stored configuration in force (null: deleted).
     */
    private Map<String, Object> restore(Map<String, ?> properties, String why, Consumer<String> warn) {
        String pid = String.valueOf(properties.get("service.pid"));
        // No PID: nothing is stored, the component runs on its defaults and the launch properties.
        String shown = properties.get("service.pid") == null ? "(defaults and launch properties)" : pid;
        Map<String, Object> good = inForce;
        Map<String, Object> bad = StoredProperties.of(properties);
        Map<String, Object> kept = good == null ? null : storedInForce != null ? storedInForce : good;
        ConfigurationAdmin cm = admin;
        if (cm == null) {
            warn.accept(shown + ": configuration refused: " + why + (good == null ? "" : "; the configuration in force stays"));
            return kept;
        }
        try {
            Configuration stored = find(cm, pid);
            Map<String, Object> storedNow = stored == null ? Map.of() : StoredProperties.of(stored.getProperties());
            if (stored == null || !StoredProperties.within(storedNow, bad)) {
                warn.accept(shown + ": configuration refused: " + why + (good == null ? "" : "; the configuration in force stays"));
                return kept;
            }
            if (good == null && properties.containsKey("service.factoryPid")) {
                stored.delete();
                warn.accept(shown + ": configuration refused: " + why + "; the configuration is deleted (none was in force before it)");
                return null;
            } else if (good == null) {
                // A singleton PID is emptied, not deleted: Declarative Services keeps judging its updates by
                // the configuration's change count, which a deleted and re-created configuration starts again.
                stored.update(new Hashtable<>());
                warn.accept(shown + ": configuration refused: " + why + "; its values are cleared, the defaults stay in force");
                return Map.of();
            } else {
                // What was stored when the configuration in force was accepted. Without it, the refused
                // update's keys with the values in force; one the configuration in force did not have (an
                // unknown property) goes. (DS gives the defaults with the stored values: only stored keys
                // are written, so that defaults stay defaults.)
                Map<String, Object> accepted = storedInForce;
                Hashtable<String, Object> restored = new Hashtable<>();
                if (accepted != null) {
                    restored.putAll(accepted);
                } else {
                    storedNow.forEach((k, v) -> {
                        if (good.containsKey(k)) {
                            restored.put(k, good.get(k));
                        }
                    });
                }
                Map<String, Object> back = StoredProperties.of((Map<String, Object>) restored);
                writtenBack = back;
                stored.update(restored);
                warn.accept(shown + ": configuration refused: " + why
                        + "; the configuration in force stays and is stored again");
                return back;
            }
        } catch (IOException | InvalidSyntaxException | IllegalStateException e) {
            warn.accept(shown + ": configuration refused: " + why + "; the refused values stay stored (" + e.getMessage() + ")");
            return kept;
        }
    }

    private static Configuration find(ConfigurationAdmin cm, String pid) throws IOException, InvalidSyntaxException {
        if (pid.indexOf('(') >= 0 || pid.indexOf(')') >= 0 || pid.indexOf('*') >= 0 || pid.indexOf('\\') >= 0) {
            return null;
        }
        Configuration[] found = cm.listConfigurations("(service.pid=" + pid + ")");
        return found == null || found.length == 0 ? null : found[0];
    }
}
