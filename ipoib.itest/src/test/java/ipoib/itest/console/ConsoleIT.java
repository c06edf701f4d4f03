package ipoib.itest.console;

import org.junit.AfterClass;
import org.junit.BeforeClass;
import org.junit.runner.RunWith;
import org.junit.runners.Suite;

/**
 * The web console's scenarios on one set of fixtures ({@link ConsoleFixture}), started before
 * the first: the pages in a real browser ({@link ConsolePages}), a client from a
 * non-loopback address ({@link ConsoleRemoteAccess}, on its own appliance) and a prometheus server
 * scraping {@code /metrics} ({@link PrometheusScrape}, last: prometheus has scraped meanwhile).
 */
@RunWith(Suite.class)
@Suite.SuiteClasses({ConsolePages.class, ConsoleRemoteAccess.class, PrometheusScrape.class})
public class ConsoleIT {
    @BeforeClass
    public static void start() throws Exception {
        ConsoleFixture.startAll();
    }

    @AfterClass
    public static void stop() throws Exception {
        ConsoleFixture.stopAll();
    }
}
