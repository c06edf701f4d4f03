package ipoib.console.internal;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Dictionary;
import java.util.HashMap;
import java.util.Hashtable;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import ipoib.api.config.ConfigurationRules;
import ipoib.runtime.ConfigAttribute;
import ipoib.runtime.ConfigCheck;
import ipoib.runtime.ShownValue;
import org.osgi.framework.Bundle;
import org.osgi.framework.BundleContext;
import org.osgi.service.cm.Configuration;
import org.osgi.service.cm.ConfigurationAdmin;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;
import org.osgi.service.component.annotations.ReferencePolicy;
import org.osgi.service.metatype.AttributeDefinition;
import org.osgi.service.metatype.MetaTypeInformation;
import org.osgi.service.metatype.MetaTypeService;
import org.osgi.service.metatype.ObjectClassDefinition;

/**
 * Configuration knobs through metatype, without Hashtables: shows a PID's properties with their
 * type, range and default, and sets values after checking them against the metatype (type,
 * options, min/max); a refused value names the property, the value and what is allowed, and
 * nothing of the request is applied.
 */
@Component(service = ConfigKnobs.class)
public final class ConfigKnobs {

    static final String USAGE = "ipoib:config <pid> [property value ...]";
    /** How long a set waits for the component's verdict (a link restarts after it took the values). */
    static final Duration VERDICT_TIMEOUT = Duration.ofSeconds(10);

    private final BundleContext context;
    private final ConfigurationAdmin configAdmin;
    private final MetaTypeService metaType;
    private final VerdictBoard verdicts;
    /** Each bundle's rules for its PIDs ({@link ConfigurationRules#PID_PROPERTY}). */
    private final Map<ConfigurationRules, Map<String, Object>> rules = new java.util.concurrent.ConcurrentHashMap<>();

    @Activate
    public ConfigKnobs(BundleContext context, @Reference ConfigurationAdmin configAdmin, @Reference MetaTypeService metaType,
            @Reference VerdictBoard verdicts) {
        this.context = context;
        this.configAdmin = configAdmin;
        this.metaType = metaType;
        this.verdicts = verdicts;
    }

    /**
     * The metatype of a PID (or of a factory configuration's factory PID) and the project's
     * check of it (ranges as bnd wrote them from the @ObjectClassDefinition; null for a PID of a
     * bundle whose metatype is not generated that way).
     */
    record Described(ObjectClassDefinition ocd, ConfigCheck check) {}

    String command(String... args) throws Exception {
        if (args.length == 0 || args.length % 2 == 0) {
            throw ConsoleCommands.usage(USAGE, args.length == 0
                    ? "a PID is required; the project's PIDs: " + String.join(", ", describedPids())
                    : "properties and values come in pairs; got " + (args.length - 1) + " words after the PID");
        }
        String pid = args[0];
        Configuration existing = find(pid);
        String metaPid = existing != null && existing.getFactoryPid() != null ? existing.getFactoryPid() : pid;
        Described described = described(pid, metaPid);
        if (existing == null && isFactory(pid)) {
            return factoryListing(pid);
        }
        if (args.length == 1) {
            return show(pid, existing, described);
        }
        Map<String, Object> values = new LinkedHashMap<>();
        for (int i = 1; i < args.length; i += 2) {
            values.put(args[i], check(pid, described, args[i], args[i + 1]));
        }
        Hashtable<String, Object> next = new Hashtable<>();
        Dictionary<String, Object> props = existing == null ? null : existing.getProperties();
        if (props != null) {
            for (var keys = props.keys(); keys.hasMoreElements();) {
                String k = keys.nextElement();
                next.put(k, props.get(k));
            }
        }
        next.putAll(values);
        // The whole configuration as it would be stored, against the component's own rules (or, for a
        // PID without, the metatype): a refused value is never stored, so what runs keeps running.
        String refusal = refusal(metaPid, existing == null ? null : existing.getPid(), described, next);
        if (refusal != null) {
            throw new IllegalArgumentException(refusal + "; nothing was changed");
        }
        if (ConsoleAccess.PID.equals(pid)) {
            // The password itself is never stored: its salted hash is.
            Map<String, Object> hashed = new HashMap<>(next);
            ConsoleAccess.hashPassword(hashed);
            next.clear();
            next.putAll(hashed);
        }
        Configuration target = existing != null ? existing : configAdmin.getConfiguration(pid, "?");
        long mark = verdicts.mark();
        target.update(next);
        // Configuration Admin stores before the component judges: the values count as set once the
        // component took them (another check, or another command, may have changed what it allows).
        VerdictBoard.Verdict verdict = verdicts.await(target.getPid(), next, mark, VERDICT_TIMEOUT);
        if (verdict != null && verdict.refused()) {
            throw new IllegalArgumentException(refusedBy(pid, described, values, verdict));
        }
        StringBuilder out = new StringBuilder();
        values.forEach((k, v) -> out.append(pid).append(": ").append(k).append(" = ").append(display(described, k, v))
                .append('\n'));
        if (verdict == null) {
            out.append(pid).append(": stored; no component took it within ").append(VERDICT_TIMEOUT.toSeconds())
                    .append(" s (its bundle may be stopped: lb): it applies when the component starts\n");
        }
        return out.toString();
    }

    /** The listing of {@code pid} as JSON ({@code ipoib:config <pid> --json}, docs/JSON.md). */
    String json(String pid) throws Exception {
        Configuration existing = find(pid);
        String metaPid = existing != null && existing.getFactoryPid() != null ? existing.getFactoryPid() : pid;
        Described described = described(pid, metaPid);
        boolean factory = existing == null && isFactory(pid);
        List<String> configurations = new ArrayList<>();
        if (factory) {
            Configuration[] instances = configAdmin.listConfigurations("(service.factoryPid=" + pid + ")");
            for (Configuration c : instances == null ? new Configuration[0] : instances) {
                configurations.add(c.getPid());
            }
            configurations.sort(null);
        }
        Dictionary<String, Object> stored = factory || existing == null ? null : existing.getProperties();
        return ConfigListingJson.of(pid, existing == null ? null : existing.getFactoryPid(), factory, configurations,
                described, stored, factory ? null : verdicts.standing(pid));
    }

    private Described described(String pid, String metaPid) {
        Described described = describe(metaPid);
        if (described == null) {
            throw ConsoleCommands.usage(USAGE, "no metatype describes PID '" + pid + "'; described PIDs: "
                    + String.join(", ", describedPids()));
        }
        return described;
    }

    /** A refusal after the values were stored: why, and each property's value in force. */
    static String refusedBy(String pid, Described described, Map<String, Object> values, VerdictBoard.Verdict verdict) {
        StringBuilder out = new StringBuilder(pid).append(": refused by its component: ").append(verdict.why());
        if (verdict.inForce() == null) {
            return out.append("; the configuration was deleted (none was in force before it)").toString();
        }
        out.append("; in force:");
        values.keySet().forEach(k -> {
            Object kept = verdict.inForce().get(k);
            out.append(' ').append(k).append(" = ").append(kept == null ? "(default)" : display(described, k, kept)).append(';');
        });
        out.setLength(out.length() - 1);
        return out.toString();
    }

    /** Why the configuration {@code properties} of {@code pid} would be refused, or null. */
    private String refusal(String metaPid, String pid, Described described, Map<String, Object> properties) {
        for (Map.Entry<ConfigurationRules, Map<String, Object>> r : rules.entrySet()) {
            if (metaPid.equals(r.getValue().get(ConfigurationRules.PID_PROPERTY))) {
                return r.getKey().refusal(pid, properties);
            }
        }
        return described.check() == null ? null : described.check().problems(properties);
    }

    @Reference(cardinality = ReferenceCardinality.MULTIPLE, policy = ReferencePolicy.DYNAMIC)
    void addRules(ConfigurationRules r, Map<String, Object> properties) {
        rules.put(r, properties);
    }

    void removeRules(ConfigurationRules r) {
        rules.remove(r);
    }

    Object check(String pid, Described described, String property, String value) {
        AttributeDefinition ad = attribute(described.ocd(), property);
        if (ad == null) {
            List<String> ids = new ArrayList<>();
            for (AttributeDefinition a : described.ocd().getAttributeDefinitions(ObjectClassDefinition.ALL)) {
                ids.add(a.getID());
            }
            throw ConsoleCommands.usage(USAGE, "PID '" + pid + "' has no property '" + ShownValue.cut(property)
                    + "' (value " + ShownValue.of(value) + "); allowed properties: " + String.join(", ", ids) + "; nothing was changed");
        }
        ConfigAttribute attribute = described.check() == null ? null : described.check().attribute(property);
        String allowed = allowed(ad, attribute);
        Object typed;
        try {
            typed = convert(ad, value);
        } catch (IllegalArgumentException e) {
            throw refusal(pid, property, value, "is not " + expected(ad) + ": allowed " + allowed);
        }
        if (ad.getOptionValues() != null && ad.getOptionValues().length > 0
                && !Arrays.asList(ad.getOptionValues()).contains(value)) {
            throw refusal(pid, property, value, "is not allowed: allowed " + allowed);
        }
        if (described.check() != null) {
            String problems = described.check().problems(Map.of(property, typed));
            if (problems != null) {
                throw new IllegalArgumentException(problems + "; nothing was changed");
            }
        }
        String problem = ad.validate(value);
        if (problem != null && !problem.isEmpty()) {
            throw refusal(pid, property, value, problem + ": allowed " + allowed);
        }
        return typed;
    }

    private static IllegalArgumentException refusal(String pid, String property, String value, String problem) {
        return new IllegalArgumentException("invalid " + pid + " property '" + property + "' value "
                + ShownValue.of(value) + " " + problem + "; nothing was changed");
    }

    static Object convert(AttributeDefinition ad, String value) {
        Object one = switch (ad.getType()) {
            case AttributeDefinition.INTEGER -> Integer.decode(value);
            case AttributeDefinition.LONG -> Long.decode(value);
            case AttributeDefinition.SHORT -> Short.decode(value);
            case AttributeDefinition.BYTE -> Byte.decode(value);
            case AttributeDefinition.DOUBLE -> Double.valueOf(value);
            case AttributeDefinition.FLOAT -> Float.valueOf(value);
            case AttributeDefinition.CHARACTER -> {
                if (value.length() != 1) {
                    throw new IllegalArgumentException("one character");
                }
                yield value.charAt(0);
            }
            case AttributeDefinition.BOOLEAN -> {
                if (!value.equals("true") && !value.equals("false")) {
                    throw new IllegalArgumentException("true or false");
                }
                yield Boolean.valueOf(value);
            }
            default -> value;
        };
        if (ad.getCardinality() != 0 && one instanceof String s) {
            // Multi-valued strings (e.g. the loopback's partitions): lines separated by '|'.
            return s.split("\\|");
        }
        return one;
    }

    /** What a value of the property's type is, in words, for a refusal: "a whole number", "a boolean". */
    static String expected(AttributeDefinition ad) {
        return switch (ad.getType()) {
            case AttributeDefinition.INTEGER, AttributeDefinition.LONG, AttributeDefinition.SHORT, AttributeDefinition.BYTE ->
                    "a whole number";
            case AttributeDefinition.DOUBLE, AttributeDefinition.FLOAT -> "a number";
            case AttributeDefinition.CHARACTER -> "one character";
            case AttributeDefinition.BOOLEAN -> "a boolean";
            default -> "a text";
        };
    }

    static String typeName(AttributeDefinition ad) {
        String base = switch (ad.getType()) {
            case AttributeDefinition.INTEGER -> "Integer";
            case AttributeDefinition.LONG -> "Long";
            case AttributeDefinition.SHORT -> "Short";
            case AttributeDefinition.BYTE -> "Byte";
            case AttributeDefinition.DOUBLE -> "Double";
            case AttributeDefinition.FLOAT -> "Float";
            case AttributeDefinition.CHARACTER -> "Character";
            case AttributeDefinition.BOOLEAN -> "Boolean";
            case AttributeDefinition.PASSWORD -> "Password";
            default -> "String";
        };
        return ad.getCardinality() != 0 ? base + "[] ('|' between values)" : base;
    }

    static String allowed(AttributeDefinition ad, ConfigAttribute attribute) {
        if (attribute != null) {
            return attribute.allowed();
        }
        if (ad.getOptionValues() != null && ad.getOptionValues().length > 0) {
            return "one of " + String.join(", ", ad.getOptionValues());
        }
        return ad.getType() == AttributeDefinition.BOOLEAN ? "true or false" : typeName(ad);
    }

    private String show(String pid, Configuration existing, Described described) {
        Dictionary<String, Object> props = existing == null ? null : existing.getProperties();
        StringBuilder out = new StringBuilder();
        out.append(pid).append(": ").append(described.ocd().getName())
                .append(existing == null ? "  (not configured: defaults in force)" : "").append('\n');
        StandingRefusal refusal = verdicts.standing(pid);
        Map<String, Object> refused = refusal == null ? Map.of() : refusal.refusedValues();
        if (refusal != null) {
            out.append("    last update refused: ").append(refusal.refusal().why())
                    .append("; the values in force are listed\n");
        }
        for (AttributeDefinition ad : described.ocd().getAttributeDefinitions(ObjectClassDefinition.ALL)) {
            Object value = props == null ? null : props.get(ad.getID());
            String[] def = ad.getDefaultValue();
            out.append(String.format("    %-32s %-28s allowed %-30s default %s", ad.getID(),
                    value == null ? "(default)" : "= " + display(described, ad.getID(), value),
                    allowed(ad, described.check() == null ? null : described.check().attribute(ad.getID())),
                    def == null || String.join("|", def).isEmpty() ? "(empty)"
                            : ad.getType() == AttributeDefinition.PASSWORD ? "(hidden)" : String.join("|", def)));
            if (refused.containsKey(ad.getID())) {
                out.append("  refused ").append(ShownValue.cut(display(described, ad.getID(), refused.get(ad.getID()))));
            }
            out.append('\n');
        }
        return out.toString();
    }

    static String display(Described described, String property, Object value) {
        AttributeDefinition ad = attribute(described.ocd(), property);
        if (ad != null && ad.getType() == AttributeDefinition.PASSWORD) {
            return "********";
        }
        if (value instanceof String[] a) {
            return String.join("|", a);
        }
        return String.valueOf(value);
    }

    private String factoryListing(String factoryPid) throws Exception {
        Configuration[] instances = configAdmin.listConfigurations("(service.factoryPid=" + factoryPid + ")");
        StringBuilder out = new StringBuilder(factoryPid + " is a factory PID; its configurations:\n");
        if (instances == null) {
            out.append("    (none)\n");
        } else {
            for (Configuration c : instances) {
                out.append("    ").append(c.getPid()).append('\n');
            }
        }
        out.append("show or set one with: ipoib:config <pid> [property value ...]");
        return out.toString();
    }

    private Configuration find(String pid) throws Exception {
        if (pid.indexOf('(') >= 0 || pid.indexOf(')') >= 0 || pid.indexOf('*') >= 0) {
            throw ConsoleCommands.usage(USAGE, "PID '" + pid + "' must not contain '(', ')' or '*'");
        }
        Configuration[] found = configAdmin.listConfigurations("(service.pid=" + pid + ")");
        return found == null || found.length == 0 ? null : found[0];
    }

    Described describe(String pid) {
        for (Bundle bundle : context.getBundles()) {
            MetaTypeInformation info = metaType.getMetaTypeInformation(bundle);
            if (info == null) {
                continue;
            }
            if (Arrays.asList(info.getPids()).contains(pid) || Arrays.asList(info.getFactoryPids()).contains(pid)) {
                ObjectClassDefinition ocd = info.getObjectClassDefinition(pid, null);
                ConfigCheck check;
                try {
                    check = ConfigCheck.of(ocd.getID(), entries(bundle));
                } catch (IllegalStateException notGeneratedByBnd) {
                    check = null;
                }
                return new Described(ocd, check);
            }
        }
        return null;
    }

    private boolean isFactory(String pid) {
        for (Bundle bundle : context.getBundles()) {
            MetaTypeInformation info = metaType.getMetaTypeInformation(bundle);
            if (info != null && Arrays.asList(info.getFactoryPids()).contains(pid)) {
                return true;
            }
        }
        return false;
    }

    /** The bundle's own entries (not its imports) as a class loader's resources, for ConfigCheck. */
    private static ClassLoader entries(Bundle bundle) {
        return new ClassLoader(null) {
            @Override
            protected java.net.URL findResource(String name) {
                return bundle.getEntry(name);
            }
        };
    }

    List<String> describedPids() {
        List<String> pids = new ArrayList<>();
        for (Bundle bundle : context.getBundles()) {
            MetaTypeInformation info = metaType.getMetaTypeInformation(bundle);
            if (info != null && bundle.getSymbolicName() != null && bundle.getSymbolicName().startsWith("ipoib")) {
                pids.addAll(Arrays.asList(info.getPids()));
                pids.addAll(Arrays.asList(info.getFactoryPids()));
            }
        }
        pids.sort(null);
        return pids;
    }

    private static AttributeDefinition attribute(ObjectClassDefinition ocd, String id) {
        for (AttributeDefinition ad : ocd.getAttributeDefinitions(ObjectClassDefinition.ALL)) {
            if (ad.getID().equals(id)) {
                return ad;
            }
        }
        return null;
    }
}
