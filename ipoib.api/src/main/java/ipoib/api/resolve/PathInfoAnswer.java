package ipoib.api.resolve;

import java.util.concurrent.CompletionStage;

/**
 * The answer to a path-information query: the path now, the path later, or no such node.
 */
public sealed interface PathInfoAnswer {

    /** The path is known. */
    record Ready(PathInfo path) implements PathInfoAnswer {}

    /**
     * Resolution is under way; the stage completes with the path, or exceptionally with
     * {@link NoSuchNodeException} when resolution fails.
     */
    record Pending(CompletionStage<PathInfo> path) implements PathInfoAnswer {}

    /** The destination cannot be reached on this link (no such interface, failed entry, partition). */
    record NoSuchNode(String reason) implements PathInfoAnswer {}
}
