package ipoib.launcher;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.concurrent.ConcurrentHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.osgi.framework.BundleContext;
import org.osgi.framework.InvalidSyntaxException;
import org.osgi.framework.ServiceReference;

/**
 * The Gogo commands registered now: every service with {@code osgi.command.scope} and
 * {@code osgi.command.function}, each function with the forms its service declares in
 * {@value CommandForms#PROPERTY}. Read at each Tab, so a command whose bundle stopped is gone
 * and a new one completes without a list to edit.
 */
final class RegisteredCommands {
    private static final String FILTER = "(&(osgi.command.scope=*)(osgi.command.function=*))";
    private final BundleContext context;
    /** The malformed declarations said already: each is reported once, not at every Tab. */
    private final Set<String> reported = ConcurrentHashMap.newKeySet();

    RegisteredCommands(BundleContext context) {
        this.context = context;
    }

    /** {@code scope:function} to its forms (empty when its service declares none), in name order. */
    Map<String, CommandForms> now() {
        Map<String, CommandForms> commands = new TreeMap<>();
        ServiceReference<?>[] references;
        try {
            // All of them: the console reads properties only, whichever class loader the commands use.
            references = context.getAllServiceReferences(null, FILTER);
        } catch (InvalidSyntaxException | IllegalStateException stopping) {
            return commands;
        }
        if (references == null) {
            return commands;
        }
        for (ServiceReference<?> r : references) {
            List<String> scopes = strings(r.getProperty("osgi.command.scope"));
            List<String> forms = strings(r.getProperty(CommandForms.PROPERTY));
            for (String function : strings(r.getProperty("osgi.command.function"))) {
                for (String scope : scopes) {
                    commands.merge(scope + ":" + function, forms(function, forms), (a, b) -> a.isEmpty() ? b : a);
                }
            }
        }
        return commands;
    }

    private CommandForms forms(String function, List<String> entries) {
        try {
            return CommandForms.of(function, entries);
        } catch (IllegalArgumentException malformed) {
            // A command whose declaration is wrong still completes by name; its author is told why.
            String why = "ipoib: Tab completes " + function + "'s name only: its " + CommandForms.PROPERTY + " is refused: "
                    + malformed.getMessage();
            if (reported.add(why)) {
                PromptLine.above(System.err, why);
            }
            return CommandForms.of(function, List.of());
        }
    }

    /** A property's strings: Gogo and DS accept a string, an array or a collection. */
    static List<String> strings(Object value) {
        List<String> out = new ArrayList<>();
        if (value instanceof String s) {
            out.add(s);
        } else if (value instanceof String[] array) {
            out.addAll(Arrays.asList(array));
        } else if (value instanceof Collection<?> c) {
            c.stream().filter(String.class::isInstance).map(String.class::cast).forEach(out::add);
        }
        return out;
    }
}
