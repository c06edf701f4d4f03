package ipoib.launcher;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/**
 * What Tab offers after a command's name: the interface names for the commands that take one, and
 * the fixed words of the commands that have some (subcommands, fault kinds, log levels, modes), as
 * the README's command reference lists them, and {@code --json} for the listings. A command not in
 * the table gets no candidates.
 */
final class ArgumentCandidates {

    private static final List<String> INTERFACE_FIRST = List.of("ipoib:links", "ipoib:stats", "ipoib:paths",
            "ipoib:cm", "ipoib:mcast", "ipoib:mode", "ipoib:delete", "ipoib:capture", "ipoib:router", "ipoib:join",
            "ipoib:leave");
    /** Subcommands whose next argument is an interface. */
    private static final Map<String, List<String>> SUBCOMMANDS = Map.of(
            "ipoib:neigh", List.of("list", "flush", "add", "del"),
            "ipoib:addr", List.of("list", "add", "del", "await"),
            "ipoib:netdev", List.of("list", "add", "del", "await", "cleanup"));
    private static final Map<String, List<String>> FIRST_WORDS = Map.of(
            "fabric:fault", List.of("loss", "duplicate", "reorder", "corrupt", "delay", "sa-drop", "sa-error",
                    "sa-status", "sa-delay", "trap-loss", "sa-rmpp-loss"),
            "ipoib:log", List.of("ERROR", "WARN", "INFO", "DEBUG", "TRACE", "framework"),
            "ipoib:await", List.of("all"),
            "fabric:sa", List.of("sendOnlyFullMember"));
    private static final Map<String, List<String>> SECOND_WORDS = Map.of(
            "ipoib:mode", List.of("datagram", "connected"),
            "ipoib:router", List.of("on", "off"),
            "ipoib:log", List.of("ERROR", "WARN", "INFO", "DEBUG", "TRACE"),
            "fabric:sa", List.of("true", "false"));

    /** The listings that take --json (docs/JSON.md). */
    private static final List<String> LISTINGS = List.of("ipoib:links", "ipoib:stats", "ipoib:paths", "ipoib:cm",
            "ipoib:providers", "ipoib:addr", "ipoib:neigh", "ipoib:mcast", "ipoib:netdev", "ipoib:events",
            "fabric:hcas", "fabric:groups", "fabric:stats", "fabric:ports", "fabric:topology", "fabric:faults",
            "fabric:sa");

    private final Supplier<List<String>> interfaces;

    /** @param interfaces the names of the running interfaces, asked at each Tab */
    ArgumentCandidates(Supplier<List<String>> interfaces) {
        this.interfaces = interfaces;
    }

    /**
     * The candidates for argument {@code index} (1 is the first after the name) of {@code command},
     * written with or without its scope; {@code previous} is the argument before it.
     */
    List<String> of(String command, int index, String previous) {
        String name = command.contains(":") ? command : scoped(command);
        List<String> out = new ArrayList<>();
        if (index == 1) {
            out.addAll(FIRST_WORDS.getOrDefault(name, List.of()));
            out.addAll(SUBCOMMANDS.getOrDefault(name, List.of()));
            if (INTERFACE_FIRST.contains(name) || name.equals("ipoib:await") || SUBCOMMANDS.containsKey(name)) {
                out.addAll(interfaces.get());
            }
        } else if (index == 2) {
            out.addAll(SECOND_WORDS.getOrDefault(name, List.of()));
            if (SUBCOMMANDS.getOrDefault(name, List.of()).contains(previous) && !previous.equals("await")) {
                out.addAll(interfaces.get());
            }
        }
        // A subcommand that changes something (neigh flush, netdev del, ...) prints no listing.
        boolean changes = index == 2 && !previous.equals("list")
                && SUBCOMMANDS.getOrDefault(name, List.of()).contains(previous);
        if (LISTINGS.contains(name) && !changes) {
            out.add("--json");
        }
        return out;
    }

    /** A command typed without its scope, as Gogo finds it: the project's scopes first. */
    private static String scoped(String function) {
        for (String scope : List.of("ipoib", "fabric")) {
            String name = scope + ":" + function;
            if (INTERFACE_FIRST.contains(name) || SUBCOMMANDS.containsKey(name) || FIRST_WORDS.containsKey(name)
                    || LISTINGS.contains(name)) {
                return name;
            }
        }
        return function;
    }
}
