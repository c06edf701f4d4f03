package ipoib.netdev.internal;

/**
 * What the {@link Bridge} reads packets from and writes them to: a {@link Tun} device (tests give
 * it one that records the packets). Buffers are raw native addresses, as {@link Tun}'s.
 */
interface PacketDevice extends ReceiveCoalescing.Device {
    /** The kernel's name of the device when it was opened. */
    String name();

    /** Whether the kernel offloads checksums and segmentation: each packet then has a {@link VnetHeader}. */
    boolean offload();

    /** Octets before each packet read: the {@link VnetHeader} with offload, else none. */
    int headerLength();

    /** One packet into {@code address}; its length with the header, or -1 when none waits, or -2 when the device failed. */
    int read(long address, int capacity);

    /** Writes one packet (after a header that asks for nothing, with offload); whether the kernel took it. */
    boolean write(long address, int length);

    boolean isClosed();
}
