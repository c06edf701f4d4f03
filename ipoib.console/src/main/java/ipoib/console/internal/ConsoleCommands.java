package ipoib.console.internal;

import ipoib.runtime.JsonText;
import ipoib.runtime.Numbers;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.felix.service.command.Descriptor;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;

/** Gogo commands of the console bundle: {@code ipoib:events} and {@code ipoib:config}. */
@Component(service = ConsoleCommands.class, property = {
        "osgi.command.scope=ipoib",
        "osgi.command.function=events",
        "osgi.command.function=config",
        "ipoib.command.completion=events -f <seconds>",
        "ipoib.command.completion=events --json",
        "ipoib.command.completion=config <pid> <property> <value>",
        "ipoib.command.completion=config <pid> --json"})
public final class ConsoleCommands {

    static final String EVENTS_USAGE = "ipoib:events [-f [seconds]] | ipoib:events --json";
    static final String CONFIG_JSON_USAGE = ConfigKnobs.USAGE + " | ipoib:config <pid> --json";

    private final EventRing ring;
    private final ConfigKnobs knobs;

    @Activate
    public ConsoleCommands(@Reference EventRing ring, @Reference ConfigKnobs knobs) {
        this.ring = ring;
        this.knobs = knobs;
    }

    @Descriptor("show the last events (link up/down with reason, neighbours, groups, providers); -f follows new "
            + "events until interrupted (Ctrl-C) or for the given seconds")
    public String events(@Descriptor("[-f [seconds]] | --json") String... args) throws InterruptedException {
        if (args.length == 1 && args[0].equals(JsonText.FLAG)) {
            List<Map<String, Object>> events = new ArrayList<>();
            for (EventRing.Entry e : ring.since(0)) {
                events.add(JsonText.record("sequence", e.sequence(), "time", e.time(), "topic", e.topic(),
                        "properties", e.properties()));
            }
            return JsonText.of(JsonText.record("events", events, "overwritten", ring.overwritten()));
        }
        boolean follow = false;
        long seconds = Long.MAX_VALUE;
        if (args.length > 0) {
            if (!args[0].equals("-f") || args.length > 2) {
                throw usage(EVENTS_USAGE, "unexpected argument '" + String.join(" ", args) + "'");
            }
            follow = true;
            if (args.length == 2) {
                try {
                    seconds = Numbers.parse("seconds", args[1], 1, 86_400);
                } catch (IllegalArgumentException e) {
                    throw usage(EVENTS_USAGE, e.getMessage());
                }
            }
        }
        List<EventRing.Entry> kept = ring.since(0);
        StringBuilder out = new StringBuilder();
        if (ring.overwritten() > 0) {
            out.append("(").append(ring.overwritten()).append(" older events overwritten)\n");
        }
        for (EventRing.Entry e : kept) {
            out.append(e.line()).append('\n');
        }
        if (!follow) {
            return kept.isEmpty() ? "no events yet" : out.toString();
        }
        PrintStream console = System.out;
        console.print(out);
        console.flush();
        long from = ring.nextSequence();
        long deadline = seconds == Long.MAX_VALUE ? Long.MAX_VALUE : System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        while (System.nanoTime() - deadline < 0) {
            long wait = Math.min(1_000_000_000L, deadline - System.nanoTime());
            if (ring.awaitSince(from, Math.max(1, wait), TimeUnit.NANOSECONDS)) {
                for (EventRing.Entry e : ring.since(from)) {
                    console.println(e.line());
                    from = e.sequence() + 1;
                }
                console.flush();
            }
        }
        return null;
    }

    @Descriptor("show a configuration PID's properties (value, type, range, default, from metatype; --json: as JSON), or set "
            + "properties: the new values are checked against the metatype ranges first, then the command waits "
            + "for the component to take them and fails if it refuses them")
    public String config(@Descriptor("<pid> [property value ...] | <pid> --json") String... args) throws Exception {
        if (JsonText.wanted(args)) {
            String[] rest = JsonText.withoutFlag(args);
            if (rest.length == 0) {
                return knobs.command(); // refused as without --json: names the project's PIDs
            }
            if (rest.length != 1) {
                throw usage(CONFIG_JSON_USAGE, "--json lists a PID's properties; setting them takes no --json");
            }
            return knobs.json(rest[0]);
        }
        return knobs.command(args);
    }

    static IllegalArgumentException usage(String usage, String problem) {
        return new IllegalArgumentException(problem + "\nusage: " + usage);
    }
}
