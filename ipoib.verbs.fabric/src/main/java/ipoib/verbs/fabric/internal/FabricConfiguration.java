package ipoib.verbs.fabric.internal;

import org.osgi.service.metatype.annotations.AttributeDefinition;
import org.osgi.service.metatype.annotations.ObjectClassDefinition;

/** Configuration of the hardware provider (PID {@value FabricVerbsProvider#PID}). */
@ObjectClassDefinition(name = "ipoib fabric provider",
        description = "Real InfiniBand HCAs through libibverbs (data path) and libibumad (subnet administration).")
@interface FabricConfiguration {

    @AttributeDefinition(name = "Device filter",
            description = "Java regular expression; only devices whose whole name matches are opened (e.g. mlx5_.*).")
    String deviceFilter() default ".*";

    @AttributeDefinition(name = "SA timeout", description = "SA client: milliseconds to wait for an answer, 10..60000.",
            min = "10", max = "60000")
    int saTimeoutMillis() default 1000;

    @AttributeDefinition(name = "SA retries", description = "SA client: attempts per request, 1..20.",
            min = "1", max = "20")
    int saRetries() default 3;

    @AttributeDefinition(name = "SM_Key",
            description = "SM_Key of SA requests: 0 (untrusted, as Linux sends it; member tables then show one "
                    + "record per group), or the SM's key (OpenSM: 1 unless configured) for a trusted client that "
                    + "sees every member; OpenSM ignores requests with any other key. Hex (0x...) or decimal.")
    String smKey() default "0";

    @AttributeDefinition(name = "libibverbs", description = "File name of libibverbs (found on the dynamic loader's search path), or its path in a "
            + "system library directory (/lib, /usr/lib, ...) or a directory of the launch property "
            + "ipoib.fabric.libraryDirs; any other path is refused and nothing is loaded.")
    String verbsLibrary() default "libibverbs.so.1";

    @AttributeDefinition(name = "libibumad", description = "File name or path of libibumad; the same places as libibverbs.")
    String umadLibrary() default "libibumad.so.3";
}
