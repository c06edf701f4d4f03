package ipoib.itest;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;

/** Prometheus' own check of a {@code /metrics} answer ({@code promtool check metrics}, Debian's package prometheus). */
public final class Promtool {
    private Promtool() {}

    public static void check(String metrics) throws Exception {
        if (!new File("/usr/bin/promtool").canExecute()) {
            throw new AssertionError("promtool is not installed: the metrics tests need Debian's package 'prometheus' "
                    + "(apt-get install prometheus; ./ipoib test and .ci/run install it)");
        }
        Process p = new ProcessBuilder("/usr/bin/promtool", "check", "metrics").redirectErrorStream(true).start();
        p.getOutputStream().write(metrics.getBytes(StandardCharsets.UTF_8));
        p.getOutputStream().close();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue("promtool finished", p.waitFor(60, TimeUnit.SECONDS));
        assertEquals("promtool check metrics:\n" + out, 0, p.exitValue());
    }
}
