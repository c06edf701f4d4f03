package ipoib.netdev.internal;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * A device's addresses and multicast groups read from the kernel in this process, what
 * {@code ip -o addr show dev D} and {@code ip -o maddr show dev D} print, without starting
 * {@code ip}: the reconciliation reads them every few seconds for every device, and a process
 * per device and period was most of what the appliance allocated with hundreds of hosts.
 * Descriptors opened once in the device's namespace ({@link Tun#inside}) stay in it: an rtnetlink
 * socket for an {@code RTM_GETADDR} dump (as iproute2's {@code ipaddr_list_flush_or_save}) and
 * {@code /proc/thread-self/net/igmp} and {@code igmp6}, the files {@code ip maddr} reads
 * (iproute2 ip/ipmaddr.c, {@code read_igmp} and {@code read_igmp6}), read again from the start.
 * Reads are on one thread at a time (the reconciliation's), into a buffer of that thread.
 */
final class KernelState implements AutoCloseable {
    private static final int AF_INET = 2;
    private static final int AF_INET6 = 10;
    private static final int AF_NETLINK = 16;
    private static final int SOCK_RAW = 3;
    private static final int SOCK_CLOEXEC = 0x80000;
    private static final int NETLINK_ROUTE = 0;
    private static final int O_RDONLY = 0;
    private static final int O_CLOEXEC = 0x80000;
    private static final int SEEK_SET = 0;
    /** linux/sockios.h: the index of the device named in a {@code struct ifreq}. */
    private static final long SIOCGIFINDEX = 0x8933;
    /** linux/rtnetlink.h and linux/netlink.h. */
    private static final int RTM_NEWADDR = 20;
    private static final int RTM_GETADDR = 22;
    private static final int NLMSG_ERROR = 2;
    private static final int NLMSG_DONE = 3;
    private static final int NLM_F_REQUEST = 1;
    private static final int NLM_F_DUMP = 0x300;
    private static final int IFA_ADDRESS = 1;
    private static final int IFA_LOCAL = 2;
    private static final int NLMSG_HEADER = 16;
    private static final int IFADDRMSG = 8;
    /** The first size of a thread's read buffer; a file or dump that does not fit doubles it. */
    private static final int BUFFER = 16 * 1024;

    private static final MethodHandle SOCKET = Libc.call("socket",
            FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.JAVA_INT));
    private static final MethodHandle SEND = Libc.call("send", FunctionDescriptor.of(ValueLayout.JAVA_LONG,
            ValueLayout.JAVA_INT, ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG, ValueLayout.JAVA_INT));
    private static final MethodHandle RECV = Libc.call("recv", FunctionDescriptor.of(ValueLayout.JAVA_LONG,
            ValueLayout.JAVA_INT, ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG, ValueLayout.JAVA_INT));
    private static final MethodHandle LSEEK = Libc.call("lseek",
            FunctionDescriptor.of(ValueLayout.JAVA_LONG, ValueLayout.JAVA_INT, ValueLayout.JAVA_LONG, ValueLayout.JAVA_INT));

    private static final ThreadLocal<MemorySegment[]> BUFFERS =
            ThreadLocal.withInitial(() -> new MemorySegment[] {Arena.ofAuto().allocate(BUFFER, 8)});

    private final String device;
    private final int netlink;
    private final int igmp;
    private final int igmp6;
    private final int index;
    private int sequence;
    private boolean closed;

    private KernelState(String device, int netlink, int igmp, int igmp6, int index) {
        this.device = device;
        this.netlink = netlink;
        this.igmp = igmp;
        this.igmp6 = igmp6;
        this.index = index;
    }

    /**
     * Opens the descriptors for {@code device} in network namespace {@code netns} (null: this
     * process's own).
     *
     * @throws IOException naming the call that failed and why (e.g. no such device)
     */
    static KernelState open(String netns, String device) throws IOException {
        return netns == null ? openHere(device) : Tun.inside(netns, "reading device " + device, () -> openHere(device));
    }

    private static KernelState openHere(String device) throws IOException {
        MemorySegment capture = Libc.capture();
        int netlink = -1;
        int igmp = -1;
        int igmp6 = -1;
        try (Arena arena = Arena.ofConfined()) {
            netlink = (int) SOCKET.invokeExact(capture, AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
            if (netlink < 0) {
                throw new IOException("device " + device + ": rtnetlink socket: " + Libc.strerror(Libc.errno(capture)));
            }
            MemorySegment ifreq = arena.allocate(40);
            ifreq.setString(0, device);
            if ((int) Libc.IOCTL.invokeExact(capture, netlink, SIOCGIFINDEX, ifreq) < 0) {
                throw new IOException("device " + device + ": its index (SIOCGIFINDEX): " + Libc.strerror(Libc.errno(capture)));
            }
            int index = ifreq.get(ValueLayout.JAVA_INT, 16);
            // thread-self: the namespace of this thread (self would be the process's first thread's).
            igmp = openFile(capture, arena, "/proc/thread-self/net/igmp", device);
            igmp6 = openFile(capture, arena, "/proc/thread-self/net/igmp6", device);
            return new KernelState(device, netlink, igmp, igmp6, index);
        } catch (IOException | RuntimeException | Error e) {
            closeQuietly(netlink);
            closeQuietly(igmp);
            closeQuietly(igmp6);
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    private static int openFile(MemorySegment capture, Arena arena, String path, String device) throws Throwable {
        int fd = (int) Libc.OPEN.invokeExact(capture, arena.allocateFrom(path), O_RDONLY | O_CLOEXEC);
        if (fd < 0) {
            throw new IOException("device " + device + ": open " + path + ": " + Libc.strerror(Libc.errno(capture)));
        }
        return fd;
    }

    /** The device's kernel index (its namespace's). */
    int index() {
        return index;
    }

    /** The addresses ({@code address/prefix}) and multicast groups the kernel has on the device now. */
    synchronized IpRoute.State read() throws IOException {
        if (closed) {
            throw new IOException("device " + device + ": closed");
        }
        try {
            List<String> addresses = addresses();
            Set<InetAddress> groups = new LinkedHashSet<>();
            groups4(readFile(igmp, "igmp"), groups);
            groups6(readFile(igmp6, "igmp6"), groups);
            return new IpRoute.State(addresses, groups);
        } catch (IOException | RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    /** One RTM_GETADDR dump; the replies of this device's index. */
    private List<String> addresses() throws Throwable {
        MemorySegment capture = Libc.capture();
        MemorySegment b = buffer(0);
        int seq = ++sequence;
        b.fill((byte) 0);
        b.set(ValueLayout.JAVA_INT, 0, NLMSG_HEADER + IFADDRMSG);
        b.set(ValueLayout.JAVA_SHORT, 4, (short) RTM_GETADDR);
        b.set(ValueLayout.JAVA_SHORT, 6, (short) (NLM_F_REQUEST | NLM_F_DUMP));
        b.set(ValueLayout.JAVA_INT, 8, seq);
        if ((long) SEND.invokeExact(capture, netlink, b.address(), (long) (NLMSG_HEADER + IFADDRMSG), 0) < 0) {
            throw new IOException("device " + device + ": RTM_GETADDR: " + Libc.strerror(Libc.errno(capture)));
        }
        List<String> result = new ArrayList<>();
        while (true) {
            long n = (long) RECV.invokeExact(capture, netlink, b.address(), b.byteSize(), 0);
            if (n < 0) {
                throw new IOException("device " + device + ": RTM_GETADDR reply: " + Libc.strerror(Libc.errno(capture)));
            }
            if (dumpPart(b, (int) n, seq, index, result)) {
                return result;
            }
        }
    }

    /**
     * Adds the addresses of device {@code index} in one datagram of an RTM_GETADDR dump
     * ({@code length} octets of {@code b}) to {@code result}; returns whether it ended the dump.
     */
    static boolean dumpPart(MemorySegment b, int length, int seq, int index, List<String> result) throws IOException {
        int at = 0;
        while (at + NLMSG_HEADER <= length) {
            int size = b.get(ValueLayout.JAVA_INT_UNALIGNED, at);
            int type = Short.toUnsignedInt(b.get(ValueLayout.JAVA_SHORT_UNALIGNED, at + 4));
            if (size < NLMSG_HEADER || at + size > length) {
                throw new IOException("RTM_GETADDR reply: a message of " + size + " octets at " + at + " of " + length);
            }
            if (b.get(ValueLayout.JAVA_INT_UNALIGNED, at + 8) == seq) {
                if (type == NLMSG_DONE) {
                    return true;
                }
                if (type == NLMSG_ERROR) {
                    int error = size >= NLMSG_HEADER + 4 ? -b.get(ValueLayout.JAVA_INT_UNALIGNED, at + NLMSG_HEADER) : 0;
                    throw new IOException("RTM_GETADDR: " + Libc.strerror(error));
                }
                if (type == RTM_NEWADDR && size >= NLMSG_HEADER + IFADDRMSG
                        && b.get(ValueLayout.JAVA_INT_UNALIGNED, at + NLMSG_HEADER + 4) == index) {
                    address(b, at + NLMSG_HEADER, at + size, result);
                }
            }
            at += align(size);
        }
        return false;
    }

    /** The address of one {@code struct ifaddrmsg} and its attributes: IFA_LOCAL, else IFA_ADDRESS, as ip prints it. */
    private static void address(MemorySegment b, int start, int end, List<String> result) {
        int family = Byte.toUnsignedInt(b.get(ValueLayout.JAVA_BYTE, start));
        int prefix = Byte.toUnsignedInt(b.get(ValueLayout.JAVA_BYTE, start + 1));
        int octets = family == AF_INET ? 4 : family == AF_INET6 ? 16 : 0;
        if (octets == 0) {
            return;
        }
        int local = -1;
        int address = -1;
        int at = start + IFADDRMSG;
        while (at + 4 <= end) {
            int length = Short.toUnsignedInt(b.get(ValueLayout.JAVA_SHORT_UNALIGNED, at));
            int type = Short.toUnsignedInt(b.get(ValueLayout.JAVA_SHORT_UNALIGNED, at + 2)) & 0x3fff;
            if (length < 4 || at + length > end) {
                return;
            }
            if (length == 4 + octets) {
                if (type == IFA_LOCAL) {
                    local = at + 4;
                } else if (type == IFA_ADDRESS) {
                    address = at + 4;
                }
            }
            at += align(length);
        }
        int from = local >= 0 ? local : address;
        if (from >= 0) {
            byte[] raw = b.asSlice(from, octets).toArray(ValueLayout.JAVA_BYTE);
            try {
                result.add(InetAddress.getByAddress(raw).getHostAddress() + "/" + prefix);
            } catch (UnknownHostException impossible) {
                throw new IllegalStateException(impossible);
            }
        }
    }

    private static int align(int length) {
        return (length + 3) & ~3;
    }

    /** The whole of a {@code /proc/net} file from its start, as text (a larger buffer while it does not fit). */
    private String readFile(int fd, String name) throws Throwable {
        MemorySegment capture = Libc.capture();
        for (int size = 0; ; ) {
            MemorySegment b = buffer(size);
            if ((long) LSEEK.invokeExact(capture, fd, 0L, SEEK_SET) < 0) {
                throw new IOException("device " + device + ": /proc/net/" + name + ": " + Libc.strerror(Libc.errno(capture)));
            }
            long total = 0;
            while (total < b.byteSize()) {
                long n = (long) Libc.READ.invokeExact(capture, fd, b.address() + total, b.byteSize() - total);
                if (n < 0) {
                    throw new IOException("device " + device + ": /proc/net/" + name + ": " + Libc.strerror(Libc.errno(capture)));
                }
                if (n == 0) {
                    return new String(b.asSlice(0, total).toArray(ValueLayout.JAVA_BYTE), java.nio.charset.StandardCharsets.US_ASCII);
                }
                total += n;
            }
            size = (int) b.byteSize() * 2;
        }
    }

    /** This thread's buffer, of at least {@code size} octets. */
    private static MemorySegment buffer(int size) {
        MemorySegment[] held = BUFFERS.get();
        if (held[0].byteSize() < size) {
            held[0] = Arena.ofAuto().allocate(size, 8);
        }
        return held[0];
    }

    /**
     * The groups of device {@code index} in {@code /proc/net/igmp} (net/ipv4/igmp.c,
     * {@code igmp_mc_seq_show}): a line {@code INDEX<tab>NAME : COUNT QUERIER} per device, then a
     * line per group starting with tabs, the group as {@code %08X} of the address in memory order.
     */
    void groups4(String text, Set<InetAddress> groups) {
        groups4(text, index, groups);
    }

    static void groups4(String text, int index, Set<InetAddress> groups) {
        boolean ours = false;
        for (String line : text.split("\n")) {
            if (line.isEmpty()) {
                continue;
            }
            if (Character.isDigit(line.charAt(0))) {
                int tab = line.indexOf('\t');
                ours = tab > 0 && line.substring(0, tab).equals(Integer.toString(index));
            } else if (ours && line.charAt(0) == '\t') {
                String hex = line.strip();
                int space = hex.indexOf(' ');
                if (space != 8) {
                    continue;
                }
                int value = Integer.parseUnsignedInt(hex.substring(0, 8), 16);
                if (ByteOrder.nativeOrder() == ByteOrder.LITTLE_ENDIAN) {
                    value = Integer.reverseBytes(value);
                }
                byte[] raw = {(byte) (value >>> 24), (byte) (value >>> 16), (byte) (value >>> 8), (byte) value};
                add(raw, groups);
            }
        }
    }

    /**
     * The groups of device {@code index} in {@code /proc/net/igmp6} (net/ipv6/mcast.c,
     * {@code igmp6_mc_seq_show}): {@code INDEX NAME GROUP USERS FLAGS TIMER}, the group as 32 hex digits.
     */
    void groups6(String text, Set<InetAddress> groups) {
        groups6(text, index, groups);
    }

    static void groups6(String text, int index, Set<InetAddress> groups) {
        for (String line : text.split("\n")) {
            String[] f = line.strip().split("\\s+");
            if (f.length < 3 || f[2].length() != 32 || !f[0].equals(Integer.toString(index))) {
                continue;
            }
            byte[] raw = new byte[16];
            for (int i = 0; i < 16; i++) {
                raw[i] = (byte) Integer.parseInt(f[2].substring(2 * i, 2 * i + 2), 16);
            }
            add(raw, groups);
        }
    }

    private static void add(byte[] raw, Set<InetAddress> groups) {
        try {
            InetAddress g = InetAddress.getByAddress(raw);
            if (g.isMulticastAddress()) {
                groups.add(g);
            }
        } catch (UnknownHostException impossible) {
            throw new IllegalStateException(impossible);
        }
    }

    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        closeQuietly(netlink);
        closeQuietly(igmp);
        closeQuietly(igmp6);
    }

    private static void closeQuietly(int fd) {
        if (fd >= 0) {
            Libc.close(fd);
        }
    }
}
