package ipoib.console.internal;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;

/** The pages' script (live.js, a resource of this bundle) with the configured refresh interval in it. */
final class LiveScript {
    /** The script's interval as written in the resource, replaced when served. */
    static final String PLACEHOLDER = "var REFRESH_MILLIS = 2000;";
    private static final String SOURCE = load();

    private LiveScript() {}

    static String text(int refreshMillis) {
        return SOURCE.replace(PLACEHOLDER, "var REFRESH_MILLIS = " + refreshMillis + ";");
    }

    private static String load() {
        try (InputStream in = LiveScript.class.getResourceAsStream("/ipoib/console/live.js")) {
            String text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
            if (!text.contains(PLACEHOLDER)) {
                throw new IllegalStateException("live.js lost its line '" + PLACEHOLDER + "'");
            }
            return text;
        } catch (IOException e) {
            throw new UncheckedIOException("live.js, a resource of this bundle", e);
        }
    }
}
