package ipoib.itest;

import static org.junit.Assert.assertTrue;

import java.util.regex.Pattern;
import org.junit.Test;

/**
 * The switch of the appliance's default interfaces: they are the Configurator JSON of the
 * {@code ipoib.defaults} bundle, and {@code ipoib.defaults=false} keeps that bundle from ever
 * starting, so the Configurator never applies them. (With the defaults, most appliance tests run
 * on the two interfaces they make.)
 */
public class DefaultInterfacesIT {
    private static final Pattern NEVER_STARTED = Pattern.compile("\\|Resolved\\s*\\|\\s*15\\|ipoib\\.defaults[ |]");

    @Test
    public void withDefaultsFalseTheirBundleNeverStartsAndNoInterfaceIsMade() throws Exception {
        try (ApplianceProcess appliance = ApplianceProcess.shortLived("ipoib.defaults=false", "org.osgi.service.http.port=0")) {
            String bundle = appliance.command("lb -s ipoib.defaults", 120);
            assertTrue(bundle, NEVER_STARTED.matcher(bundle).find());
            String links = appliance.command("ipoib:links", 30);
            assertTrue(links, links.contains("no IPoIB interfaces"));
        }
    }
}
