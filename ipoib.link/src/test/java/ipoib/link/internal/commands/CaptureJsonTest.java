package ipoib.link.internal.commands;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ipoib.api.link.IpoibLink;
import ipoib.api.link.LinkState;
import ipoib.link.internal.LinkEngine;
import ipoib.link.internal.LinkFixture;
import ipoib.runtime.CaptureFiles;
import jakarta.json.JsonArray;
import jakarta.json.JsonObject;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code ipoib:capture --json}, read by a real JSON parser: each interface's running or last capture. */
class CaptureJsonTest {
    final LinkFixture fixture = new LinkFixture();
    final List<IpoibLink> links = new CopyOnWriteArrayList<>();

    @TempDir
    Path dir;

    @AfterEach
    void close() {
        fixture.close();
    }

    private LinkEngine up(String name, String device) {
        LinkEngine e = fixture.engine(LinkFixture.config(name, device));
        e.providerAvailable(fixture.subnet);
        fixture.until(name + " UP", () -> e.state() == LinkState.UP);
        links.add(e);
        return e;
    }

    @Test
    void eachCapturedInterfaceWithItsFileStateAndCounts() throws Exception {
        up("b", "loop1");
        up("a", "loop0");
        CaptureCommand command = new CaptureCommand(links, () -> CaptureFiles.in(dir));
        assertEquals(0, LinkListingsJsonTest.parse(command.capture("--json")).getJsonArray("captures").size(),
                "no capture yet");

        command.capture("a", "a.pcapng", "5");
        JsonObject json = LinkListingsJsonTest.parse(command.capture("--json"));
        assertEquals(Set.of("captures"), json.keySet());
        JsonArray captures = json.getJsonArray("captures");
        assertEquals(1, captures.size(), "b captured nothing: not listed");
        JsonObject a = captures.getJsonObject(0);
        assertEquals(Set.of("interface", "file", "state", "framesReceived", "framesSent", "dropped", "error"), a.keySet());
        assertEquals("a", a.getString("interface"));
        assertEquals(dir.resolve("a.pcapng").toString(), a.getString("file"));
        assertEquals("running", a.getString("state"));
        assertEquals(0, a.getInt("dropped"));
        assertTrue(a.isNull("error"));

        command.capture("a", "stop");
        a = LinkListingsJsonTest.parse(command.capture("--json")).getJsonArray("captures").getJsonObject(0);
        assertEquals("ended", a.getString("state"));
        assertEquals(a.getInt("framesReceived") + a.getInt("framesSent") + " frames written",
                command.capture().replaceAll("(?s).*: (\\d+ frames written).*", "$1"), "the counts of the text listing");
    }

    @Test
    void startingOrStoppingRefusesJsonWithTheUsage() {
        up("a", "loop0");
        CaptureCommand command = new CaptureCommand(links, () -> CaptureFiles.in(dir));
        for (String[] args : new String[][] {{"a", "x.pcapng", "--json"}, {"a", "stop", "--json"}}) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> command.capture(args));
            assertTrue(e.getMessage().contains("usage: ipoib:capture <interface> <file> [count]"), e.getMessage());
        }
        assertEquals(0, dir.toFile().list().length, "no capture was started");
    }
}
