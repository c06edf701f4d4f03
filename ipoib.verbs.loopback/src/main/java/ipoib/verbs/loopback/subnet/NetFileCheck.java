package ipoib.verbs.loopback.subnet;

import java.io.IOException;
import java.nio.file.InvalidPathException;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;

/**
 * Checks a net file before an appliance is started on it ({@code ./ipoib --opensm --topology
 * FILE}): {@code java -cp ipoib.verbs.loopback.jar ipoib.verbs.loopback.subnet.NetFileCheck FILE}
 * prints the file's nodes and exits 0, or prints what is wrong with it and exits 1 (2: usage).
 * The loopback reads the file with the same parser, so a file this passes is one it takes.
 */
public final class NetFileCheck {
    private NetFileCheck() {
    }

    public static void main(String[] args) {
        if (args.length != 1) {
            System.err.println("usage: NetFileCheck <net file in ibsim's format>");
            System.exit(2);
        }
        String problem = problem(args[0]);
        if (problem != null) {
            System.err.println(problem);
            System.exit(1);
        }
    }

    /** What is wrong with the net file {@code file}, naming it; null when nothing is. */
    static String problem(String file) {
        try {
            NetFile.read(Path.of(file));
            return null;
        } catch (NoSuchFileException e) {
            return file + ": no such file";
        } catch (IOException | InvalidPathException e) {
            return file + ": cannot read it (" + e.getMessage() + ")";
        } catch (IllegalArgumentException e) {
            // The parser's errors name the file (and the line).
            return e.getMessage().contains(file) ? e.getMessage() : file + ": " + e.getMessage();
        }
    }
}
