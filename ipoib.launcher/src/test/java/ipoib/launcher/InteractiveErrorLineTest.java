package ipoib.launcher;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/** What the interactive console prints for a command that failed. */
class InteractiveErrorLineTest {
    @Test
    void aStatedRefusalShowsItsMessageAlone() {
        assertEquals("error: no interface 'x'", InteractiveConsole.errorLine(new IllegalArgumentException("no interface 'x'"),
                "no interface 'x'"));
        assertEquals("error: not ready after 3 s", InteractiveConsole.errorLine(new IllegalStateException("not ready after 3 s"),
                "not ready after 3 s"));
    }

    @Test
    void anythingElseKeepsItsExceptionsName() {
        assertEquals("gogo: UnsupportedOperationException: no", InteractiveConsole.errorLine(
                new UnsupportedOperationException("no"), "no"));
    }
}
