package ipoib.launcher;

import java.util.List;
import org.apache.felix.gogo.runtime.Parser;
import org.apache.felix.gogo.runtime.Parser.Executable;
import org.apache.felix.gogo.runtime.Parser.Pipeline;
import org.apache.felix.gogo.runtime.Parser.Program;

/**
 * Whether the console and scripts print what a command line returned. A pipeline's value is its
 * last command's: for {@code ipoib:links | grep UP} that is grep's {@code true} (a line matched), a
 * status as a shell's exit code, not output; the lines went through the pipe already. Such a
 * true or false is not printed; every other value is, as Gogo formats it.
 */
final class LineResult {
    private LineResult() {}

    static boolean shown(String line, Object result) {
        if (result == null) {
            return false;
        }
        return !(result instanceof Boolean) || !endsInPipeline(line);
    }

    private static boolean endsInPipeline(String line) {
        try {
            Program program = new Parser(line).program();
            List<Executable> statements = program.tokens();
            return !statements.isEmpty() && statements.get(statements.size() - 1) instanceof Pipeline pipeline
                    && pipeline.tokens().size() > 1;
        } catch (RuntimeException unparsable) {
            // It ran, so Gogo parsed it; were it not parsable here, its value is shown as before.
            return false;
        }
    }
}
