package ipoib.netdev.internal;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * A Linux TUN device ({@code IFF_TUN | IFF_NO_PI}: every read and write is one bare IP packet)
 * opened through {@code java.lang.foreign}: open(2) of {@code /dev/net/tun}, ioctl(2)
 * {@code TUNSETIFF}, and non-blocking read(2)/write(2); a {@link DescriptorPoller} waits for many devices at once.
 *
 * <p>With offload ({@code IFF_VNET_HDR} and {@code TUNSETOFFLOAD} of checksum and TCP
 * segmentation, as QEMU and vhost-net open their taps) every packet is preceded by a
 * {@link VnetHeader}: the kernel hands over TCP segments of up to 64 KiB with their checksums
 * left to the device (and an application's {@code UDP_SEGMENT} sends, where the kernel has UDP
 * segmentation offload), which the bridge segments and completes ({@link Segmentation}); packets
 * written to the device get a header that asks for nothing. The device lives
 * as long as the descriptor: closing it (or the process ending, even by {@code kill -9}) removes
 * the device from the kernel (a non-persistent TUN device, drivers/net/tun.c).
 *
 * <p>read and write take the buffer as a raw address ({@code long}): a pointer argument has
 * the same x86-64/AArch64 calling convention as a 64-bit integer, and passing the address
 * avoids allocating a slice per packet.
 */
final class Tun implements PacketDevice, AutoCloseable {
    static final String DEVICE = "/dev/net/tun";
    /** {@code _IOW('T', 202, int)} from linux/if_tun.h. */
    private static final long TUNSETIFF = 0x400454caL;
    private static final short IFF_TUN = 0x0001;
    private static final short IFF_NO_PI = 0x1000;
    private static final short IFF_VNET_HDR = 0x4000;
    /** {@code _IOR('T', 210, unsigned int)} from linux/if_tun.h: the device's name and flags. */
    private static final long TUNGETIFF = 0x800454d2L;
    /** {@code _IOW('T', 226, int)} from linux/if_tun.h (Linux 4.20 and later): the argument points to the carrier. */
    private static final long TUNSETCARRIER = 0x400454e2L;
    /** {@code _IOW('T', 208, unsigned int)} from linux/if_tun.h; the argument is passed by value. */
    private static final long TUNSETOFFLOAD = 0x400454d0L;
    /** TUN_F_CSUM | TUN_F_TSO4 | TUN_F_TSO6 | TUN_F_TSO_ECN (linux/if_tun.h). */
    private static final long OFFLOADS = 0x01 | 0x02 | 0x04 | 0x08;
    /** TUN_F_USO4 | TUN_F_USO6 (linux/if_tun.h, Linux 6.2 and later; older kernels refuse them with EINVAL). */
    private static final long UDP_OFFLOADS = 0x20 | 0x40;
    private static final int O_RDWR = 2;
    private static final int O_NONBLOCK = 0x800;
    private static final int O_CLOEXEC = 0x80000;
    private static final int O_RDONLY = 0;
    /** setns(2)'s nstype for a network namespace (linux/sched.h). */
    private static final int CLONE_NEWNET = 0x40000000;
    static final int EAGAIN = 11;
    private static final int EBUSY = 16;
    private static final int EINVAL = 22;
    private static final int EINTR = 4;
    /** IFNAMSIZ less the terminating NUL. */
    static final int MAX_NAME = 15;
    /** Bit 12 of the capability sets: CAP_NET_ADMIN (linux/capability.h). */
    private static final int CAP_NET_ADMIN = 12;

    private static final MethodHandle IOCTL_VALUE = Libc.call("ioctl",
            FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG),
            Linker.Option.firstVariadicArg(2));
    private static final MethodHandle WRITE = Libc.call("write",
            FunctionDescriptor.of(ValueLayout.JAVA_LONG, ValueLayout.JAVA_INT, ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG));
    private static final MethodHandle WRITEV = Libc.call("writev",
            FunctionDescriptor.of(ValueLayout.JAVA_LONG, ValueLayout.JAVA_INT, ValueLayout.JAVA_LONG, ValueLayout.JAVA_INT));
    private static final MethodHandle SETNS = Libc.call("setns",
            FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.JAVA_INT));

    /** Octets of the three {@code struct iovec}s before the header that asks for nothing, in {@link #IOVECS}. */
    private static final int IOVEC_BYTES = 48;

    /**
     * Per writing thread, three {@code struct iovec}s: the header (by default one that asks for
     * nothing, all zero: no segmentation, no checksum to complete, so that the kernel verifies the
     * packet's checksums as it would a NIC's, kept after the iovecs), then the packet, whole or as
     * its headers and the rest.
     */
    private static final ThreadLocal<MemorySegment> IOVECS = ThreadLocal.withInitial(() -> {
        MemorySegment iov = Arena.ofAuto().allocate(IOVEC_BYTES + VnetHeader.LENGTH, 8);
        iov.set(ValueLayout.JAVA_LONG, 0, iov.address() + IOVEC_BYTES);
        iov.set(ValueLayout.JAVA_LONG, 8, VnetHeader.LENGTH);
        return iov;
    });

    private final String name;
    private final int fd;
    private final boolean offload;
    private volatile boolean closed;

    private Tun(String name, int fd, boolean offload) {
        this.name = name;
        this.fd = fd;
        this.offload = offload;
    }

    /**
     * Why TUNSETIFF refused {@code name}, in the user's terms: the name is held by a TUN device
     * open already (EBUSY), or by a device of another kind, such as {@code lo} (EINVAL); else the
     * system's words.
     */
    static String nameTaken(String name, int errno) {
        return switch (errno) {
            case EBUSY -> "device name '" + name + "' is taken: a TUN device of that name is open already (another "
                    + "bridge's or another program's; choose another name with dev <device>)";
            case EINVAL -> "device name '" + name + "' is taken by a device that is not a TUN device "
                    + "(choose another name with dev <device>)";
            default -> "ioctl TUNSETIFF " + name + ": " + Libc.strerror(errno);
        };
    }

    /**
     * What keeps this process from creating TUN devices and configuring them, or null when
     * nothing does: the device node and CAP_NET_ADMIN in the effective set.
     */
    static String missingPrivilege() {
        Path tun = Path.of(DEVICE);
        if (!Files.exists(tun)) {
            return DEVICE + " does not exist (load the tun module: modprobe tun; in a container, pass the device "
                    + "in, e.g. --device /dev/net/tun)";
        }
        if (!Files.isReadable(tun) || !Files.isWritable(tun)) {
            return DEVICE + " is not readable and writable by this user";
        }
        try {
            boolean root = false;
            for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
                if (line.startsWith("Uid:")) {
                    root = line.substring(4).trim().split("\\s+")[1].equals("0"); // the effective UID
                } else if (line.startsWith("CapEff:")) {
                    long caps = Long.parseUnsignedLong(line.substring(7).trim(), 16);
                    if ((caps & (1L << CAP_NET_ADMIN)) == 0) {
                        return root ? "the process runs as root without CAP_NET_ADMIN (dropped by its container or a "
                                + "wrapper such as setpriv or capsh: a container needs --cap-add NET_ADMIN)"
                                : "the process lacks CAP_NET_ADMIN (run as root, or grant it: "
                                + "setcap cap_net_admin+ep on the java binary, or a container with --cap-add NET_ADMIN)";
                    }
                    return null;
                }
            }
        } catch (IOException | NumberFormatException e) {
            return "cannot read the capabilities from /proc/self/status: " + e.getMessage();
        }
        return "cannot find CapEff in /proc/self/status";
    }

    /** Creates a TUN device named {@code name} (at most 15 characters) in this process's network namespace. */
    static Tun open(String name) throws IOException {
        return open(name, false);
    }

    /**
     * Creates a TUN device named {@code name} (at most 15 characters) in this process's network
     * namespace, with checksum and TCP segmentation offload when {@code offload}.
     */
    static Tun open(String name, boolean offload) throws IOException {
        byte[] bytes = name.getBytes(StandardCharsets.US_ASCII);
        if (bytes.length == 0 || bytes.length > MAX_NAME) {
            throw new IllegalArgumentException("device name '" + name + "': 1.." + MAX_NAME + " characters allowed");
        }
        MemorySegment capture = Libc.capture();
        try (Arena arena = Arena.ofConfined()) {
            int fd = (int) Libc.OPEN.invokeExact(capture, arena.allocateFrom(DEVICE), O_RDWR | O_NONBLOCK | O_CLOEXEC);
            if (fd < 0) {
                throw new IOException("open " + DEVICE + ": " + Libc.strerror(Libc.errno(capture)));
            }
            MemorySegment ifreq = arena.allocate(40);
            MemorySegment.copy(bytes, 0, ifreq, ValueLayout.JAVA_BYTE, 0, bytes.length);
            ifreq.set(ValueLayout.JAVA_SHORT, 16, (short) (IFF_TUN | IFF_NO_PI | (offload ? IFF_VNET_HDR : 0)));
            int r = (int) Libc.IOCTL.invokeExact(capture, fd, TUNSETIFF, ifreq);
            if (r < 0) {
                int errno = Libc.errno(capture);
                int ignored = (int) Libc.CLOSE.invokeExact(capture, fd);
                throw new IOException(nameTaken(name, errno));
            }
            if (offload) {
                r = (int) IOCTL_VALUE.invokeExact(capture, fd, TUNSETOFFLOAD, OFFLOADS | UDP_OFFLOADS);
                if (r < 0) {
                    r = (int) IOCTL_VALUE.invokeExact(capture, fd, TUNSETOFFLOAD, OFFLOADS);
                }
            }
            if (r < 0) {
                int errno = Libc.errno(capture);
                int ignored = (int) Libc.CLOSE.invokeExact(capture, fd);
                throw new IOException("ioctl TUNSETOFFLOAD " + name + ": " + Libc.strerror(errno));
            }
            return new Tun(name, fd, offload);
        } catch (IOException | RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    /**
     * Creates a TUN device named {@code name} directly in network namespace {@code netns} (a name
     * under {@code /run/netns}, as {@code ip netns add} makes it): a device belongs to the
     * namespace of the thread that opens it (drivers/net/tun.c, {@code tun_chr_open} takes
     * {@code current->nsproxy->net_ns}), so a thread of its own enters the namespace with
     * setns(2), opens the device and ends (it would leave the namespace again, but a thread that
     * entered one is never reused). No {@code ip link set netns} to move it, and every host's
     * device has its name from the start.
     */
    static Tun openIn(String netns, String name, boolean offload) throws IOException {
        return inside(netns, "creating device " + name, () -> open(name, offload));
    }

    /** What {@link #inside} runs in the namespace. */
    interface InNamespace<T> {
        T run() throws IOException;
    }

    /**
     * Runs {@code task} on a platform thread of its own that entered network namespace
     * {@code netns} and ends with it (a thread that entered a namespace is never reused), and
     * returns its result: a descriptor it opens (a device, a socket, a {@code /proc/thread-self/net}
     * file) belongs to that namespace for its life. {@code what} names the task in an interruption.
     */
    static <T> T inside(String netns, String what, InNamespace<T> task) throws IOException {
        Object[] result = new Object[1];
        Throwable[] failure = new Throwable[1];
        Thread t = Thread.ofPlatform().name("ipoib-netdev-open").daemon(true).unstarted(() -> {
            try {
                enter(netns);
                result[0] = task.run();
            } catch (Throwable e) {
                failure[0] = e;
            }
        });
        t.start();
        try {
            t.join();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException(what + " in network namespace " + netns + ": interrupted", e);
        }
        if (failure[0] instanceof IOException e) {
            throw e;
        }
        if (failure[0] instanceof RuntimeException e) {
            throw e;
        }
        if (failure[0] != null) {
            throw new IllegalStateException(failure[0]);
        }
        @SuppressWarnings("unchecked")
        T value = (T) result[0];
        return value;
    }

    /** Moves the calling (platform) thread into network namespace {@code netns}. */
    private static void enter(String netns) throws IOException {
        MemorySegment capture = Libc.capture();
        String path = IpRoute.NETNS_DIR.resolve(netns).toString();
        try (Arena arena = Arena.ofConfined()) {
            int fd = (int) Libc.OPEN.invokeExact(capture, arena.allocateFrom(path), O_RDONLY | O_CLOEXEC);
            if (fd < 0) {
                throw new IOException("network namespace " + netns + ": open " + path + ": " + Libc.strerror(Libc.errno(capture)));
            }
            int r = (int) SETNS.invokeExact(capture, fd, CLONE_NEWNET);
            int errno = Libc.errno(capture);
            int ignored = (int) Libc.CLOSE.invokeExact(capture, fd);
            if (r < 0) {
                throw new IOException("network namespace " + netns + ": setns: " + Libc.strerror(errno));
            }
        } catch (IOException | RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    /**
     * The device behind a descriptor this process keeps open ({@link ParkedDevices}), checked with
     * {@code TUNGETIFF}: it must still be a TUN device named {@code name}.
     *
     * @throws IOException when the descriptor is not, or no longer, that device
     */
    static Tun reopen(int fd, String name, boolean offload) throws IOException {
        MemorySegment capture = Libc.capture();
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment ifreq = arena.allocate(40);
            int r = (int) Libc.IOCTL.invokeExact(capture, fd, TUNGETIFF, ifreq);
            if (r < 0) {
                throw new IOException("descriptor " + fd + " of device " + name + ": ioctl TUNGETIFF: "
                        + Libc.strerror(Libc.errno(capture)));
            }
            String actual = ifreq.getString(0, StandardCharsets.US_ASCII);
            boolean vnet = (ifreq.get(ValueLayout.JAVA_SHORT, 16) & IFF_VNET_HDR) != 0;
            if (!actual.equals(name) || vnet != offload) {
                throw new IOException("descriptor " + fd + " is device " + actual + (vnet ? " with" : " without")
                        + " offload, not " + name);
            }
            return new Tun(name, fd, offload);
        } catch (IOException | RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    @Override
    public String name() {
        return name;
    }

    /** The descriptor, to keep the device open across a restart of its component ({@link ParkedDevices}). */
    int descriptor() {
        return fd;
    }

    /**
     * Sets the device's carrier, as a NIC's link: off, the kernel keeps the device, its addresses
     * and routes but sends nothing to it ({@code NO-CARRIER}); on again, it sends.
     */
    void carrier(boolean on) throws IOException {
        MemorySegment capture = Libc.capture();
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment value = arena.allocate(ValueLayout.JAVA_INT);
            value.set(ValueLayout.JAVA_INT, 0, on ? 1 : 0);
            int r = (int) Libc.IOCTL.invokeExact(capture, fd, TUNSETCARRIER, value);
            if (r < 0) {
                throw new IOException("ioctl TUNSETCARRIER " + name + ": " + Libc.strerror(Libc.errno(capture)));
            }
        } catch (IOException | RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    /** Whether the kernel offloads checksums and TCP segmentation to this device. */
    @Override
    public boolean offload() {
        return offload;
    }

    /** Octets before each packet read: the {@link VnetHeader} with offload, else none. */
    @Override
    public int headerLength() {
        return offload ? VnetHeader.LENGTH : 0;
    }

    /**
     * Reads one packet into native memory at {@code address} (at most {@code capacity} octets),
     * after its {@linkplain #headerLength() header}.
     *
     * @return its length with the header, or -1 when none is waiting, or -2 when the descriptor failed
     */
    @Override
    public int read(long address, int capacity) {
        MemorySegment capture = Libc.capture();
        try {
            long n = (long) Libc.READ.invokeExact(capture, fd, address, (long) capacity);
            if (n >= 0) {
                return (int) n;
            }
            int errno = Libc.errno(capture);
            return errno == EAGAIN || errno == EINTR ? -1 : -2;
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    /** Writes one packet from native memory (after a header that asks for nothing, with offload); returns whether the kernel took it. */
    @Override
    public boolean write(long address, int length) {
        return write(0, address, length);
    }

    /**
     * Writes one packet from native memory after the {@link VnetHeader} at {@code headerAddress}
     * (with offload; 0: a header that asks for nothing); returns whether the kernel took it.
     */
    @Override
    public boolean write(long headerAddress, long address, int length) {
        MemorySegment capture = Libc.capture();
        try {
            if (offload) {
                MemorySegment iov = iovecs(headerAddress);
                iov.set(ValueLayout.JAVA_LONG, 16, address);
                iov.set(ValueLayout.JAVA_LONG, 24, length);
                return (long) WRITEV.invokeExact(capture, fd, iov.address(), 2) == VnetHeader.LENGTH + length;
            }
            return (long) WRITE.invokeExact(capture, fd, address, (long) length) == length;
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    /**
     * Writes one packet given in two pieces, its first {@code headersLength} octets at
     * {@code headersAddress} and the rest at {@code restAddress}, after the {@link VnetHeader} at
     * {@code headerAddress} (with offload; without, the header is left out); one writev(2).
     */
    @Override
    public boolean write(long headerAddress, long headersAddress, int headersLength, long restAddress, int restLength) {
        MemorySegment capture = Libc.capture();
        try {
            MemorySegment iov = iovecs(headerAddress);
            iov.set(ValueLayout.JAVA_LONG, 16, headersAddress);
            iov.set(ValueLayout.JAVA_LONG, 24, headersLength);
            iov.set(ValueLayout.JAVA_LONG, 32, restAddress);
            iov.set(ValueLayout.JAVA_LONG, 40, restLength);
            long packet = (long) headersLength + restLength;
            return offload ? (long) WRITEV.invokeExact(capture, fd, iov.address(), 3) == VnetHeader.LENGTH + packet
                    : (long) WRITEV.invokeExact(capture, fd, iov.address() + 16, 2) == packet;
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    /** This thread's iovecs, the first pointing at the header at {@code headerAddress} (0: the one asking for nothing). */
    private static MemorySegment iovecs(long headerAddress) {
        MemorySegment iov = IOVECS.get();
        iov.set(ValueLayout.JAVA_LONG, 0, headerAddress != 0 ? headerAddress : iov.address() + IOVEC_BYTES);
        return iov;
    }

    @Override
    public boolean isClosed() {
        return closed;
    }

    /** Closes the descriptor: the kernel removes the device. */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        Libc.close(fd);
    }
}
