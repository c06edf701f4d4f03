package ipoib.verbs.loopback.subnet;

/** A cable between two ports of the topology, listed once (a is the end that appears first). */
public record Link(Port a, Port b) {
}
