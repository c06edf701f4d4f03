package ipoib.link.internal.commands;

import static ipoib.link.internal.commands.LinkCommands.usage;

import ipoib.api.link.IpoibLink;
import ipoib.link.internal.LinkEngine;
import ipoib.link.internal.capture.LinkCapture;
import ipoib.runtime.CaptureFiles;
import ipoib.runtime.JsonText;
import ipoib.runtime.Numbers;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/** {@code ipoib:capture}: an interface's frames to a pcapng file, stopping it, and the captures' status. */
final class CaptureCommand {
    private final List<IpoibLink> links;
    private final Supplier<CaptureFiles> directory;

    /**
     * @param links the interfaces, live
     * @param directory where captures go (read at each command: the launch property)
     */
    CaptureCommand(List<IpoibLink> links, Supplier<CaptureFiles> directory) {
        this.links = links;
        this.directory = directory;
    }

    private List<IpoibLink> sorted() {
        return LinkCommands.sorted(links);
    }

    /** Each interface's running or last capture as JSON (docs/JSON.md). */
    private String json() {
        List<Map<String, Object>> captures = new ArrayList<>();
        for (IpoibLink link : sorted()) {
            LinkCapture.Status s = link instanceof LinkEngine engine ? engine.captures().status() : null;
            if (s != null) {
                captures.add(JsonText.record("interface", s.link(), "file", s.file().toString(),
                        "state", s.running() ? "running" : "ended", "framesReceived", s.received(),
                        "framesSent", s.sent(), "dropped", s.dropped(), "error", s.failure()));
            }
        }
        return JsonText.of(JsonText.record("captures", captures));
    }

    String capture(String... args) throws IOException {
        String usage = "ipoib:capture <interface> <file> [count] | ipoib:capture <interface> stop | ipoib:capture [--json]";
        if (JsonText.wanted(args)) {
            if (args.length > 1) {
                throw usage(usage, "--json lists the captures; starting or stopping one takes no --json");
            }
            return json();
        }
        if (args.length == 0) {
            StringBuilder out = new StringBuilder();
            for (IpoibLink link : sorted()) {
                if (link instanceof LinkEngine engine && engine.captures().summary() != null) {
                    out.append(engine.captures().summary()).append('\n');
                }
            }
            return out.length() == 0 ? "no captures" : out.toString();
        }
        if (args.length > 3) {
            throw usage(usage, "too many arguments");
        }
        IpoibLink link = links.stream().filter(l -> l.name().equals(args[0])).findFirst().orElse(null);
        if (!(link instanceof LinkEngine engine)) {
            throw usage(usage, "no interface '" + args[0] + "'");
        }
        if (args.length == 1) {
            throw usage(usage, "a file (or 'stop') is required after the interface");
        }
        if ("stop".equals(args[1])) {
            if (args.length > 2) {
                throw usage(usage, "too many arguments");
            }
            String summary = engine.captures().stop();
            if (summary == null) {
                throw usage(usage, "no capture of " + engine.name() + " was started");
            }
            return summary;
        }
        long limit = 1000;
        if (args.length == 3) {
            try {
                limit = Numbers.parse("count", args[2], 1, 10_000_000);
            } catch (IllegalArgumentException e) {
                throw usage(usage, e.getMessage());
            }
        }
        java.nio.file.Path file;
        try {
            file = directory.get().resolve(args[1]);
        } catch (IllegalArgumentException e) {
            throw usage(usage, e.getMessage());
        }
        try {
            engine.captures().start(file, limit);
        } catch (IllegalStateException e) {
            throw usage(usage, e.getMessage() + "; stop it first");
        } catch (IOException e) {
            throw usage(usage, "cannot write '" + file + "': " + ipoib.runtime.FileErrors.reason(e));
        }
        return "capturing up to " + limit + " frames of " + engine.name() + " to " + file
                + " (ipoib:capture " + engine.name() + " stop ends it)";
    }
}
