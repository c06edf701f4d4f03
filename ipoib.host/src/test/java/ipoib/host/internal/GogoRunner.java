package ipoib.host.internal;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import org.apache.felix.gogo.runtime.CommandProcessorImpl;
import org.apache.felix.gogo.runtime.threadio.ThreadIOImpl;
import org.apache.felix.service.command.CommandSession;

/** Runs commands through Gogo's own processor, so that its {@code @Parameter} parsing is what is tested. */
final class GogoRunner implements AutoCloseable {
    record Result(Object value, Exception error, String console) {}

    private final ThreadIOImpl threadIo = new ThreadIOImpl();
    private final CommandProcessorImpl processor;

    GogoRunner(String scope, String function, Object command) {
        threadIo.start();
        processor = new CommandProcessorImpl(threadIo);
        processor.addCommand(scope, command, function);
    }

    Result run(String line) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        CommandSession session = processor.createSession(new ByteArrayInputStream(new byte[0]), out, out);
        Object value = null;
        Exception error = null;
        try {
            value = session.execute(line);
        } catch (Exception e) {
            error = e;
        } finally {
            session.getConsole().flush();
            session.close();
        }
        return new Result(value, error, out.toString(StandardCharsets.UTF_8));
    }

    @Override
    public void close() {
        threadIo.stop();
    }
}
