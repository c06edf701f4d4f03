package ipoib.launcher;

import java.util.ArrayList;
import java.util.List;
import org.apache.felix.service.command.CommandSession;
import org.apache.felix.service.command.Function;
import org.osgi.framework.Bundle;
import org.osgi.framework.BundleContext;

/**
 * {@code start} that also takes a bundle's symbolic name, as {@code stop} does: Gogo's own
 * {@code felix:start} (gogo.command's {@code Basic.start}) takes bundle ids or URLs only and reads
 * {@code start ipoib.arp} as a URL without a protocol. Names of installed bundles become their
 * ids; ids, URLs and options go to Gogo's command unchanged.
 */
final class StartCommand implements Function {

    static final String NAME = "start";
    /** gogo.command's start (scope felix), found as Gogo finds a command in any scope. */
    private static final String GOGO_START = "*:start";

    private final BundleContext context;

    StartCommand(BundleContext context) {
        this.context = context;
    }

    @Override
    public Object execute(CommandSession session, List<Object> arguments) throws Exception {
        List<Object> resolved = new ArrayList<>(arguments.size());
        for (Object argument : arguments) {
            resolved.add(argument instanceof CharSequence text ? resolve(text.toString()) : argument);
        }
        if (!(session.get(GOGO_START) instanceof Function start)) {
            throw new IllegalStateException("Gogo's start command (gogo.command's felix:start) is not available");
        }
        return start.execute(session, resolved);
    }

    private String resolve(String word) {
        if (word.startsWith("-") || word.contains(":") || word.chars().allMatch(Character::isDigit)) {
            return word;
        }
        List<Bundle> named = new ArrayList<>();
        for (Bundle b : context.getBundles()) {
            if (word.equals(b.getSymbolicName())) {
                named.add(b);
            }
        }
        if (named.isEmpty()) {
            throw new IllegalArgumentException("no bundle '" + word + "' is installed\n"
                    + "usage: start [-t] [-p] <bundle id | symbolic name | URL (file:..., http:...)>...");
        }
        // Several bundles of one name (versions side by side): the one installed last.
        return String.valueOf(named.get(named.size() - 1).getBundleId());
    }
}
