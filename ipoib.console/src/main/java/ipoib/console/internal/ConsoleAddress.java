package ipoib.console.internal;

import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.servlet.runtime.HttpServiceRuntime;
import org.osgi.service.servlet.runtime.HttpServiceRuntimeConstants;

/**
 * Tells the operator where the console is, once the HTTP service runs: a line on stderr (stdout
 * belongs to the shell's command output in script mode).
 */
@Component(immediate = true, service = {})
public final class ConsoleAddress {

    @Activate
    public ConsoleAddress(@Reference HttpServiceRuntime runtime, Map<String, Object> unused) {
        PrintStream err = new PrintStream(new FileOutputStream(FileDescriptor.err), true, StandardCharsets.UTF_8);
        err.println("ipoib: web console at " + consoleUrl(runtime) + " (metrics at " + base(runtime) + "/metrics)");
    }

    static String base(HttpServiceRuntime runtime) {
        Object endpoint = runtime.getRuntimeDTO().serviceDTO.properties.get(HttpServiceRuntimeConstants.HTTP_SERVICE_ENDPOINT);
        String first = null;
        if (endpoint instanceof String s) {
            first = s;
        } else if (endpoint instanceof String[] a && a.length > 0) {
            first = a[0];
        } else if (endpoint instanceof java.util.Collection<?> c && !c.isEmpty()) {
            first = String.valueOf(c.iterator().next());
        }
        if (first == null) {
            return "http://127.0.0.1:8080";
        }
        return first.endsWith("/") ? first.substring(0, first.length() - 1) : first;
    }

    static String consoleUrl(HttpServiceRuntime runtime) {
        return base(runtime) + "/system/console/ipoib";
    }
}
