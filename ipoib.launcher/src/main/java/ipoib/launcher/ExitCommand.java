package ipoib.launcher;

import java.util.List;
import org.apache.felix.service.command.CommandSession;
import org.apache.felix.service.command.Function;

/**
 * {@code exit [status]}, as in a shell: leaves the console or ends a script with that status
 * (0..255, default 0). It does not exit the JVM itself: it throws {@link Request}, which the
 * console or script runner that ran the command turns into the process's exit, so a script's
 * status is decided in one place.
 */
final class ExitCommand implements Function {

    static final String NAME = "exit";
    static final String USAGE = "usage: exit [status], status 0..255 (default 0)";

    /** Thrown by {@code exit}: the console or script ends with {@link #status()}. */
    static final class Request extends RuntimeException {
        private final int status;

        Request(int status) {
            super("exit " + status, null, false, false);
            this.status = status;
        }

        int status() {
            return status;
        }
    }

    @Override
    public Object execute(CommandSession session, List<Object> arguments) {
        if (arguments.size() > 1) {
            throw new IllegalArgumentException("exit takes at most one status, not " + arguments.size() + " arguments\n" + USAGE);
        }
        int status = 0;
        if (arguments.size() == 1) {
            String text = String.valueOf(arguments.get(0)).strip();
            try {
                status = Integer.parseInt(text);
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("exit status '" + text + "' is not a number: allowed 0..255\n" + USAGE);
            }
            if (status < 0 || status > 255) {
                throw new IllegalArgumentException("exit status '" + text + "' is out of range: allowed 0..255\n" + USAGE);
            }
        }
        throw new Request(status);
    }

    /** The exit request in {@code e}'s cause chain (Gogo may wrap what a command throws), or null. */
    static Request requested(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof Request r) {
                return r;
            }
        }
        return null;
    }
}
