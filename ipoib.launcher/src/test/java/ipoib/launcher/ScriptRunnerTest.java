package ipoib.launcher;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.PipedInputStream;
import java.io.PipedOutputStream;
import java.io.PrintStream;
import java.io.StringReader;
import java.lang.reflect.Proxy;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.felix.gogo.runtime.CommandProcessorImpl;
import org.apache.felix.gogo.runtime.threadio.ThreadIOImpl;
import org.apache.felix.service.command.Descriptor;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.osgi.framework.Bundle;
import org.osgi.framework.BundleContext;

/** Script mode on Gogo's own runtime: commands run as their lines arrive; exit ends the script. */
class ScriptRunnerTest {

    /** A command that says what it was given. */
    public static final class Commands {
        @Descriptor("echoes its words")
        public String say(String... words) {
            return "said " + String.join(" ", words);
        }

        /** As gogo.shell's grep: passes on the lines of its input that hold the word, returns whether one did. */
        public boolean grep(String word) throws IOException {
            boolean found = false;
            BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
            for (String line = in.readLine(); line != null; line = in.readLine()) {
                if (line.contains(word)) {
                    System.out.println(line);
                    found = true;
                }
            }
            return found;
        }

        public boolean truth() {
            return true;
        }
    }

    /** Stands in for gogo.command's start, which takes bundle ids or URLs. */
    public static final class GogoStart {
        public String start(String... ids) {
            return "gogo start " + String.join(" ", ids);
        }
    }

    private ThreadIOImpl threadIo;
    private ScriptRunner runner;
    private final Output out = new Output();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    @BeforeEach
    void setUp() {
        threadIo = new ThreadIOImpl();
        threadIo.start();
        CommandProcessorImpl processor = new CommandProcessorImpl(threadIo);
        processor.addCommand("test", new Commands(), "say");
        processor.addCommand("test", new Commands(), "grep");
        processor.addCommand("test", new Commands(), "truth");
        processor.addCommand("gogo", new GogoStart(), "start");
        BundleContext context = (BundleContext) Proxy.newProxyInstance(getClass().getClassLoader(),
                new Class<?>[] {BundleContext.class}, (proxy, method, args) -> switch (method.getName()) {
                    case "getBundles" -> new Bundle[] {bundle(0, "org.apache.felix.framework"), bundle(7, "ipoib.arp")};
                    default -> null;
                });
        runner = new ScriptRunner(context, processor);
    }

    private Bundle bundle(long id, String symbolicName) {
        return (Bundle) Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] {Bundle.class},
                (proxy, method, args) -> switch (method.getName()) {
                    case "getBundleId" -> id;
                    case "getSymbolicName" -> symbolicName;
                    default -> null;
                });
    }

    @AfterEach
    void tearDown() {
        threadIo.stop();
    }

    private int run(String script) {
        return runner.run(() -> new BufferedReader(new StringReader(script)), "test.gosh",
                new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));
    }

    @Test
    void eachCommandRunsWhenItsLineArrivesWithoutWaitingForTheEndOfInput() throws Exception {
        PipedOutputStream writer = new PipedOutputStream();
        PipedInputStream reader = new PipedInputStream(writer);
        CompletableFuture<Integer> status = CompletableFuture.supplyAsync(() -> runner.run(
                () -> new BufferedReader(new InputStreamReader(reader, StandardCharsets.UTF_8)), "stdin",
                new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8)));
        writer.write("say one \\\n  two\n".getBytes(StandardCharsets.UTF_8));
        writer.flush();
        out.await("said one two", 10);
        assertFalse(status.isDone(), "the script goes on reading");
        writer.write("say three\nexit 3\nsay never\n".getBytes(StandardCharsets.UTF_8));
        writer.flush();
        assertEquals(3, status.get(10, TimeUnit.SECONDS));
        assertTrue(out.text().contains("said three"), out.text());
        assertFalse(out.text().contains("said never"), out.text());
        writer.close();
    }

    @Test
    void exitEndsTheScriptWithItsStatusOrZero() {
        assertEquals(0, run("say a\nexit\nsay b\n"));
        assertFalse(out.text().contains("said b"), out.text());
        assertEquals(255, run("exit 255\n"));
        assertEquals(0, run("say c\n# the end of input is exit 0\n"));
        assertEquals("", err.toString(StandardCharsets.UTF_8));
    }

    @Test
    void aBadExitStatusIsAFailingCommandWithUsage() {
        assertEquals(1, run("exit 256\nsay never\n"));
        String error = err.toString(StandardCharsets.UTF_8);
        assertTrue(error.contains("ipoib: test.gosh line 1: command failed: exit 256"), error);
        assertTrue(error.contains("exit status '256' is out of range: allowed 0..255"), error);
        assertTrue(error.contains("usage: exit [status]"), error);
        assertFalse(out.text().contains("said never"), out.text());
    }

    @Test
    void aFailingCommandNamesTheLineWhereItStarts() {
        assertEquals(1, run("# comment\n\nsay ok \\\n  still\nnosuch:command\n"));
        String error = err.toString(StandardCharsets.UTF_8);
        assertTrue(error.contains("ipoib: test.gosh line 5: command failed: nosuch:command"), error);
        assertTrue(out.text().contains("g! say ok    still\nsaid ok still"), out.text());
    }

    /** grep's true or false is a pipeline's status, as a shell's exit code, not a line of output. */
    @Test
    void aPipelinesTrueOrFalseIsNotPrinted() {
        assertEquals(0, run("say up and running | grep up\nsay down | grep up\nsay next\n"));
        assertEquals("g! say up and running | grep up\nsaid up and running\ng! say down | grep up\ng! say next\nsaid next\n",
                out.text());
    }

    @Test
    void aCommandsOwnTrueIsPrinted() {
        assertEquals(0, run("truth\n"));
        assertEquals("g! truth\ntrue\n", out.text());
    }

    @Test
    void anUnknownCommandStopsTheScriptWithGogosError() {
        assertEquals(1, run("say first\nnosuch:command arg\nsay never\n"));
        String error = err.toString(StandardCharsets.UTF_8);
        assertTrue(error.contains("ipoib: test.gosh line 2: command failed: nosuch:command arg"), error);
        assertTrue(error.contains("Command not found: nosuch:command"), error);
        assertTrue(out.text().contains("said first"), out.text());
        assertFalse(out.text().contains("g! say never"), "the script stops at the failure:\n" + out.text());
    }

    @Test
    void anExceptionFromAMethodCallIsReportedWithItsMessage() {
        // A Java method call that throws: the exception's message is the reported error.
        assertEquals(1, run("'abc' substring 5\n"));
        String error = err.toString(StandardCharsets.UTF_8);
        assertTrue(error.contains("command failed: 'abc' substring 5"), error);
        assertTrue(error.contains("out of bounds for length 3"), error);
    }

    @Test
    void aContinuedLastLineRunsAtTheEndOfInput() {
        assertEquals(0, run("say last \\"));
        assertTrue(out.text().contains("said last"), out.text());
    }

    @Test
    void startTakesASymbolicNameAsStopDoes() {
        assertEquals(0, run("start ipoib.arp\nstart -t 12 file:/tmp/x.jar\n"));
        assertTrue(out.text().contains("gogo start 7\n"), out.text());
        assertTrue(out.text().contains("gogo start -t 12 file:/tmp/x.jar\n"), out.text());
    }

    @Test
    void startOfABundleNotInstalledSaysWhatStartTakes() {
        assertEquals(1, run("start ipoib.nosuch\n"));
        String error = err.toString(StandardCharsets.UTF_8);
        assertTrue(error.contains("no bundle 'ipoib.nosuch' is installed"), error);
        assertTrue(error.contains("usage: start [-t] [-p] <bundle id | symbolic name | URL"), error);
        assertFalse(out.text().contains("gogo start"), out.text());
    }

    /** stdout that a test can wait on. */
    private static final class Output extends OutputStream {
        private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();

        @Override
        public synchronized void write(int b) {
            bytes.write(b);
            notifyAll();
        }

        @Override
        public synchronized void write(byte[] b, int off, int len) {
            bytes.write(b, off, len);
            notifyAll();
        }

        synchronized String text() {
            return bytes.toString(StandardCharsets.UTF_8);
        }

        synchronized void await(String expected, long seconds) throws InterruptedException, IOException {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
            while (!text().contains(expected)) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    throw new AssertionError("no '" + expected + "' within " + seconds + " s in:\n" + text());
                }
                wait(Math.max(1, TimeUnit.NANOSECONDS.toMillis(left)));
            }
        }
    }
}
