package ipoib.launcher;

import org.apache.felix.service.command.CommandSession;
import org.osgi.framework.BundleContext;

/**
 * What the appliance's console and its scripts add to a Gogo session: {@code exit [status]} and
 * {@code start} by symbolic name. Session variables holding a function come before the commands
 * of every scope when Gogo looks a command up, so these replace gosh's {@code exit}
 * ({@code System.exit} through its profile) and gogo.command's {@code start}.
 */
final class ApplianceSession {
    private ApplianceSession() {}

    static void prepare(CommandSession session, BundleContext context) {
        session.put(ExitCommand.NAME, new ExitCommand());
        session.put(StartCommand.NAME, new StartCommand(context));
    }
}
