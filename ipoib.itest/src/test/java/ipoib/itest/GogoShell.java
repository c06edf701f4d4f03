package ipoib.itest;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.apache.felix.service.command.CommandProcessor;
import org.apache.felix.service.command.CommandSession;
import org.apache.felix.service.command.Converter;

/** Runs Gogo commands in the framework under test, as a user at the prompt would. */
final class GogoShell {
    private GogoShell() {}

    /** What a command printed (its result formatted as the shell does), and what it threw. */
    record Result(String output, Exception error) {
        String all() {
            return output + (error == null ? "" : error.getMessage());
        }
    }

    static Result execute(CommandProcessor processor, String command) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8);
        CommandSession session = processor.createSession(new ByteArrayInputStream(new byte[0]), out, out);
        try {
            Object result = session.execute(command);
            if (result != null) {
                out.println(session.format(result, Converter.INSPECT));
            }
            return new Result(bytes.toString(StandardCharsets.UTF_8), null);
        } catch (Exception e) {
            return new Result(bytes.toString(StandardCharsets.UTF_8), e);
        } finally {
            session.close();
        }
    }

    /** The output of a command; what it threw is thrown on. */
    static String run(CommandProcessor processor, String command) throws Exception {
        Result r = execute(processor, command);
        if (r.error() != null) {
            throw r.error();
        }
        return r.output();
    }

    /** The message of a command that must fail. */
    static String failure(CommandProcessor processor, String command) {
        Result r = execute(processor, command);
        if (r.error() == null) {
            throw new AssertionError("'" + command + "' should fail, printed: " + r.output());
        }
        return String.valueOf(r.error().getMessage());
    }
}
