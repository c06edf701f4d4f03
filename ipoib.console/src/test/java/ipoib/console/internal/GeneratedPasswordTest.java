package ipoib.console.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class GeneratedPasswordTest {

    /** Appliances of one user starting together all read the one password the first of them wrote. */
    @Test
    void appliancesStartingAtOnceReadOnePasswordWithOwnerOnlyPermissions(@TempDir Path home) throws Exception {
        int starts = 8;
        ExecutorService pool = Executors.newFixedThreadPool(starts);
        try {
            for (int round = 0; round < 50; round++) {
                Path file = home.resolve("round-" + round).resolve("console-password");
                CyclicBarrier together = new CyclicBarrier(starts);
                List<Future<String>> passwords = new ArrayList<>();
                for (int i = 0; i < starts; i++) {
                    passwords.add(pool.submit(() -> {
                        together.await();
                        return GeneratedPassword.load(file).password();
                    }));
                }
                Set<String> seen = new HashSet<>();
                for (Future<String> p : passwords) {
                    seen.add(p.get());
                }
                assertEquals(1, seen.size(), "round " + round + ": " + seen);
                assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(file)));
                assertEquals(seen.iterator().next() + "\n", Files.readString(file));
            }
        } finally {
            pool.shutdownNow();
        }
    }
}
