package ipoib.itest;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * {@link IpoibProgressIT}'s stand-in for the appliance jar: it does what the appliance does with a
 * script, in short: prints the web console's address line as the appliance does at start, then
 * reads the script (the file {@code ipoib.script} names, or stdin for {@code -}) and echoes each
 * line after {@code g! } (and the text of an {@code echo}); a line {@code fail} fails as a command
 * does, its error naming the script as the appliance names it ({@code ipoib.script.name}, else the
 * file's name), and ends the run with status 1.
 */
public final class StandInAppliance {
    private StandInAppliance() {}

    public static void main(String[] args) throws Exception {
        System.out.println("ipoib: web console at http://127.0.0.1:0/system/console/ipoib (stand-in)");
        String script = System.getProperty("ipoib.script");
        boolean stdin = script.equals("-");
        String name = System.getProperty("ipoib.script.name", stdin ? "stdin" : String.valueOf(Path.of(script).getFileName()));
        try (BufferedReader lines = stdin ? new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8))
                : Files.newBufferedReader(Path.of(script), StandardCharsets.UTF_8)) {
            int number = 0;
            for (String line = lines.readLine(); line != null; line = lines.readLine()) {
                number++;
                System.out.println("g! " + line);
                if (line.startsWith("echo ")) {
                    System.out.println(line.substring(5));
                } else if (line.equals("fail")) {
                    System.err.println("ipoib: " + name + " line " + number + ": command failed: fail");
                    System.exit(1);
                }
            }
        }
    }
}
