package ipoib.netdev.internal;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Consumer;

/**
 * The kernel's multicast memberships on the device, read from the IGMP and MLD reports it sends
 * (the device has IFF_MULTICAST, so a socket's join makes the kernel report): a group it reports
 * joining becomes a listener join (the port a FullMember of the IB group), one it reports
 * leaving a leave, as Linux ipoib turns the device's multicast list into joins in
 * {@code ipoib_mcast_restart_task} (drivers/infiniband/ulp/ipoib/ipoib_multicast.c, called from
 * {@code ipoib_set_mcast_list}, the device's ndo_set_rx_mode).
 *
 * <p>Understood: IGMPv1/v2 reports and v2 leaves (RFC 2236), IGMPv3 reports (RFC 3376 §4.2),
 * MLDv1 reports and dones (RFC 2710), MLDv2 reports (RFC 3810 §5.2). A record in EXCLUDE mode,
 * or in INCLUDE mode with sources, is a membership; INCLUDE with no source is none. Called on
 * the device's reader thread (reports) and the reconciliation thread ({@link #reconcile}). New
 * joins are bounded per host ({@link JoinBudget}).
 */
final class Membership {
    static final int IGMP_V1_REPORT = 0x12;
    static final int IGMP_V2_REPORT = 0x16;
    static final int IGMP_V2_LEAVE = 0x17;
    static final int IGMP_V3_REPORT = 0x22;
    static final int MLD_V1_REPORT = 131;
    static final int MLD_V1_DONE = 132;
    static final int MLD_V2_REPORT = 143;

    private static final int MODE_IS_INCLUDE = 1;
    private static final int MODE_IS_EXCLUDE = 2;
    private static final int CHANGE_TO_INCLUDE = 3;
    private static final int CHANGE_TO_EXCLUDE = 4;
    private static final int ALLOW_NEW_SOURCES = 5;

    private static final ValueLayout.OfShort U16 = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(java.nio.ByteOrder.BIG_ENDIAN);

    private final Set<InetAddress> groups = ConcurrentHashMap.newKeySet();
    private final Consumer<InetAddress> join;
    private final Consumer<InetAddress> leave;
    private final JoinBudget budget;
    private final LongAdder overBudget;

    /** Joins without a budget. */
    Membership(Consumer<InetAddress> join, Consumer<InetAddress> leave) {
        this(join, leave, null, new LongAdder());
    }

    /**
     * Joins within {@code budget} (null: none): a join over it is not made, not recorded (the
     * group is not a member) and counted in {@code overBudget}.
     */
    Membership(Consumer<InetAddress> join, Consumer<InetAddress> leave, JoinBudget budget, LongAdder overBudget) {
        this.join = join;
        this.leave = leave;
        this.budget = budget;
        this.overBudget = overBudget;
    }

    /** The groups the kernel is a member of now. */
    Set<InetAddress> groups() {
        return Set.copyOf(groups);
    }

    /** An IGMP message of {@code length} octets at {@code offset}. Returns whether it was a report it understood. */
    boolean igmp(MemorySegment b, long offset, int length) {
        if (length < 8) {
            return false;
        }
        int type = Byte.toUnsignedInt(b.get(ValueLayout.JAVA_BYTE, offset));
        switch (type) {
            case IGMP_V1_REPORT, IGMP_V2_REPORT -> set(address(b, offset + 4, 4), true);
            case IGMP_V2_LEAVE -> set(address(b, offset + 4, 4), false);
            case IGMP_V3_REPORT -> records(b, offset, length, 4);
            default -> {
                return false;
            }
        }
        return true;
    }

    /** An ICMPv6 message of {@code length} octets at {@code offset}; returns whether it was an MLD report or done. */
    boolean mld(MemorySegment b, long offset, int length) {
        if (length < 8) {
            return false;
        }
        int type = Byte.toUnsignedInt(b.get(ValueLayout.JAVA_BYTE, offset));
        switch (type) {
            case MLD_V1_REPORT, MLD_V1_DONE -> {
                if (length < 24) {
                    return false;
                }
                set(address(b, offset + 8, 16), type == MLD_V1_REPORT);
            }
            case MLD_V2_REPORT -> records(b, offset, length, 16);
            default -> {
                return false;
            }
        }
        return true;
    }

    /** IGMPv3 / MLDv2: the number of records at +6, records from +8 (type, aux words, sources, group, sources). */
    private void records(MemorySegment b, long offset, int length, int addressLength) {
        int count = Short.toUnsignedInt(b.get(U16, offset + 6));
        long p = offset + 8;
        long end = offset + length;
        for (int i = 0; i < count; i++) {
            if (p + 4 + addressLength > end) {
                return;
            }
            int type = Byte.toUnsignedInt(b.get(ValueLayout.JAVA_BYTE, p));
            int auxWords = Byte.toUnsignedInt(b.get(ValueLayout.JAVA_BYTE, p + 1));
            int sources = Short.toUnsignedInt(b.get(U16, p + 2));
            InetAddress group = address(b, p + 4, addressLength);
            switch (type) {
                case MODE_IS_EXCLUDE, CHANGE_TO_EXCLUDE -> set(group, true);
                case MODE_IS_INCLUDE, CHANGE_TO_INCLUDE -> set(group, sources > 0);
                case ALLOW_NEW_SOURCES -> set(group, true);
                default -> { } // BLOCK_OLD_SOURCES keeps the membership as it is.
            }
            p += 4 + addressLength + (long) sources * addressLength + auxWords * 4L;
        }
    }

    /**
     * The device's multicast list as the kernel keeps it ({@code ip maddr}): groups listed and not
     * joined are joined (those the kernel never reports, such as 224.0.0.1 and ff02::1, and those
     * joined before the device was bridged), joined groups no longer listed are left. IPv6 groups
     * of interface-local scope (ff01::/16) stay in the node and are skipped.
     */
    void reconcile(Set<InetAddress> listed) {
        for (InetAddress g : listed) {
            if (!(g instanceof java.net.Inet6Address) || (g.getAddress()[1] & 0x0F) >= 2) {
                set(g, true);
            }
        }
        for (InetAddress g : groups()) {
            if (!listed.contains(g)) {
                set(g, false);
            }
        }
    }

    /** A join that failed: the group is forgotten, so that the next {@link #reconcile} joins it again. */
    synchronized void joinFailed(InetAddress group) {
        groups.remove(group);
    }

    private synchronized void set(InetAddress group, boolean member) {
        if (group == null || !group.isMulticastAddress()) {
            return;
        }
        if (member && budget != null && !groups.contains(group) && !budget.tryTake()) {
            overBudget.increment();
            return;
        }
        if (member ? groups.add(group) : groups.remove(group)) {
            (member ? join : leave).accept(group);
        }
    }

    /** Leaves every group (the device goes away). */
    void leaveAll() {
        for (InetAddress g : groups()) {
            set(g, false);
        }
    }

    private static InetAddress address(MemorySegment b, long offset, int length) {
        byte[] a = new byte[length];
        MemorySegment.copy(b, ValueLayout.JAVA_BYTE, offset, a, 0, length);
        try {
            return InetAddress.getByAddress(a);
        } catch (UnknownHostException impossible) {
            return null;
        }
    }
}
