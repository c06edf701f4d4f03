package ipoib.verbs.fabric.internal;

import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/**
 * Validates the configuration into {@link FabricRuntime.Settings}, naming property, value and
 * range: first the raw properties against the metatype ({@link ipoib.runtime.ConfigCheck}, before
 * DS's conversion can truncate a Long or hide a text), then what the metatype cannot say (a
 * regular expression, a 64-bit key, a library in an allowed place: {@link LibraryLocations}).
 */
final class ConfigCheck {
    private static final ipoib.runtime.ConfigCheck METATYPE = ipoib.runtime.ConfigCheck.of(FabricConfiguration.class);

    private ConfigCheck() {}

    /**
     * @throws IllegalArgumentException naming every bad property, its value and what is allowed
     */
    static FabricRuntime.Settings settings(FabricConfiguration c, java.util.Map<String, ?> properties,
                                           LibraryLocations libraries) {
        String problems = METATYPE.problemsOfDeclared(properties);
        if (problems != null) {
            throw new IllegalArgumentException(problems);
        }
        return settings(c.deviceFilter(), c.saTimeoutMillis(), c.saRetries(), c.smKey(), c.verbsLibrary(),
                c.umadLibrary(), libraries);
    }

    /**
     * @throws IllegalArgumentException naming the first bad property, its value and what is allowed
     */
    static FabricRuntime.Settings settings(FabricConfiguration c) {
        return settings(c.deviceFilter(), c.saTimeoutMillis(), c.saRetries(), c.smKey(), c.verbsLibrary(),
                c.umadLibrary());
    }

    static FabricRuntime.Settings settings(String deviceFilter, int saTimeoutMillis, int saRetries, String smKey,
                                           String verbsLibrary, String umadLibrary) {
        return settings(deviceFilter, saTimeoutMillis, saRetries, smKey, verbsLibrary, umadLibrary,
                LibraryLocations.system());
    }

    static FabricRuntime.Settings settings(String deviceFilter, int saTimeoutMillis, int saRetries, String smKey,
                                           String verbsLibrary, String umadLibrary, LibraryLocations libraries) {
        Pattern filter;
        try {
            filter = Pattern.compile(deviceFilter == null || deviceFilter.isBlank() ? ".*" : deviceFilter.strip());
        } catch (PatternSyntaxException e) {
            throw invalid("deviceFilter", deviceFilter, "a Java regular expression (" + e.getDescription() + ")");
        }
        // The ranges are declared once, in FabricConfiguration's metatype.
        METATYPE.check(java.util.Map.of("saTimeoutMillis", saTimeoutMillis, "saRetries", saRetries));
        long key;
        try {
            String t = smKey == null ? "" : smKey.strip();
            key = t.startsWith("0x") || t.startsWith("0X") ? Long.parseUnsignedLong(t.substring(2), 16)
                    : Long.parseUnsignedLong(t);
        } catch (NumberFormatException e) {
            throw invalid("smKey", smKey, "a 64-bit key, hex (0x1) or decimal");
        }
        return new FabricRuntime.Settings(libraries.check("verbsLibrary", verbsLibrary),
                libraries.check("umadLibrary", umadLibrary), filter, saTimeoutMillis, saRetries, key);
    }

    private static IllegalArgumentException invalid(String property, Object value, String allowed) {
        return new IllegalArgumentException("invalid fabric provider property '" + property + "' value '" + value
                + "': allowed " + allowed);
    }
}
