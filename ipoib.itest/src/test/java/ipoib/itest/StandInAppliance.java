package ipoib.itest;

import java.nio.file.Files;
import java.nio.file.Path;

/**
 * {@link IpoibProgressIT}'s stand-in for the appliance jar: it does what the appliance does with a
 * script given as a file, in short: prints the web console's address line as the appliance does
 * at start, then echoes each line after {@code g! } (and the text of an {@code echo}), and ends.
 */
public final class StandInAppliance {
    private StandInAppliance() {}

    public static void main(String[] args) throws Exception {
        System.out.println("ipoib: web console at http://127.0.0.1:0/system/console/ipoib (stand-in)");
        for (String line : Files.readAllLines(Path.of(System.getProperty("ipoib.script")))) {
            System.out.println("g! " + line);
            if (line.startsWith("echo ")) {
                System.out.println(line.substring(5));
            }
        }
    }
}
