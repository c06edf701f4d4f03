package ipoib.launcher;

import java.lang.reflect.Method;
import java.lang.reflect.Parameter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.felix.service.command.CommandSession;
import org.apache.felix.service.command.Descriptor;

/**
 * The error a user of the appliance's console and scripts sees for a failed command. When Gogo
 * finds no method of a command that takes the arguments given (its "Cannot coerce links(Token)
 * to any of [()]", for example a command without parameters given one), the user gets the
 * command's usage instead, built from its methods and their {@code @Descriptor}s: one mechanism
 * for every command, whatever its bundle. Commands that check their own arguments (varargs)
 * throw their own usage, which is shown as it is.
 */
final class CommandUsage {
    private CommandUsage() {}

    private static final Pattern COERCE = Pattern.compile("Cannot coerce (\\S+)\\((.*)\\) to any of .*", Pattern.DOTALL);

    /** The message for {@code e}, thrown by {@code commandLine} in {@code session}. */
    static String describe(CommandSession session, String commandLine, Throwable e) {
        String message = ScriptRunner.describe(e);
        Matcher m = COERCE.matcher(message);
        if (!(e instanceof IllegalArgumentException) || !m.matches()) {
            return message;
        }
        String function = m.group(1);
        String command = commandName(commandLine, function);
        if (command == null) {
            return message;
        }
        List<String> forms = forms(session, command);
        if (forms.isEmpty()) {
            return message;
        }
        String given = arguments(commandLine, command);
        return command + (given.isEmpty() ? ": missing arguments" : ": wrong arguments '" + given + "'")
                + "\nusage: " + String.join("\n       ", forms);
    }

    /** The command word of the line that names {@code function} (scoped or not), or null. */
    private static String commandName(String commandLine, String function) {
        for (String word : commandLine.strip().split("\\s+")) {
            if (word.equals(function) || word.endsWith(":" + function)) {
                return word;
            }
        }
        return null;
    }

    private static String arguments(String commandLine, String command) {
        String rest = commandLine.substring(commandLine.indexOf(command) + command.length());
        int pipe = rest.indexOf('|');
        int semicolon = rest.indexOf(';');
        int end = rest.length();
        if (pipe >= 0) {
            end = pipe;
        }
        if (semicolon >= 0 && semicolon < end) {
            end = semicolon;
        }
        return rest.substring(0, end).strip();
    }

    /** Every form of the command: its name and its parameters as the methods declare them. */
    static List<String> forms(CommandSession session, String command) {
        Object proxy;
        try {
            proxy = session.get(command);
        } catch (RuntimeException e) {
            return List.of();
        }
        if (proxy == null) {
            return List.of();
        }
        Object target;
        Method unget = null;
        try {
            Method getTarget = proxy.getClass().getMethod("getTarget");
            target = getTarget.invoke(proxy);
            unget = proxy.getClass().getMethod("ungetTarget");
        } catch (ReflectiveOperationException e) {
            return List.of();
        }
        try {
            String function = command.substring(command.indexOf(':') + 1);
            List<Method> methods = new ArrayList<>(Arrays.stream(target.getClass().getMethods())
                    .filter(x -> x.getName().equals(function)).toList());
            methods.sort(Comparator.comparingInt(Method::getParameterCount));
            List<String> forms = new ArrayList<>();
            for (Method method : methods) {
                StringBuilder form = new StringBuilder(command);
                for (Parameter p : method.getParameters()) {
                    if (p.getType().getName().equals("org.apache.felix.service.command.CommandSession")) {
                        continue;
                    }
                    Descriptor d = p.getAnnotation(Descriptor.class);
                    String what = d != null ? d.value() : p.getType().getSimpleName();
                    form.append(' ').append(p.isVarArgs() ? (what.startsWith("[") ? what : "[" + what + "]") : "<" + what + ">");
                }
                forms.add(form.toString());
            }
            return forms;
        } finally {
            try {
                unget.invoke(proxy);
            } catch (ReflectiveOperationException ignored) {
                // Only releases the service reference.
            }
        }
    }
}
