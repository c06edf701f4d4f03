package ipoib.verbs.loopback.fabric;

import ipoib.api.Guid;
import ipoib.api.IbMtu;
import ipoib.api.QKey;
import ipoib.api.Rate;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * One partition, in the spirit of OpenSM's {@code partitions.conf}:
 * <pre>
 * Default=0x7fff, ipoib, mtu=4, rate=3, sl=0, Q_Key=0x0b1b, defmember=full : ALL ;
 * Storage=0x8001, ipoib : loop0/1=full, loop1=limited, 0x0002c90300000201 ;
 * </pre>
 * Flags: {@code ipoib} (the SM creates the IPoIB broadcast group, RFC 4391 §4), {@code mtu}
 * (IBA code 1..5), {@code rate} (IBA code), {@code sl}, {@code scope} (of the broadcast group),
 * {@code Q_Key}, {@code defmember} ({@code full} or {@code limited}, the default for members
 * without a suffix; OpenSM's default is limited). Members: {@code ALL}, {@code ALL_CAS}, a
 * device {@code loopN}, a port {@code loopN/P}, or a port GUID, each optionally
 * {@code =full} or {@code =limited}.
 *
 * @param name the partition's name
 * @param pkeyBase the 15-bit partition number
 * @param ipoib whether the broadcast group exists from the start
 * @param mtu the broadcast group's MTU
 * @param rate the broadcast group's rate
 * @param serviceLevel the partition's SL
 * @param scope the broadcast group's scope
 * @param qkey the broadcast group's Q_Key
 * @param members the members and their membership
 */
public record PartitionConfig(String name, int pkeyBase, boolean ipoib, IbMtu mtu, Rate rate, int serviceLevel,
                              int scope, QKey qkey, List<Member> members) {

    /** OpenSM's default Q_Key for IPoIB broadcast groups. */
    public static final QKey DEFAULT_QKEY = QKey.of(0x0b1b);

    /**
     * A member selector.
     *
     * @param selector {@code ALL}, {@code ALL_CAS}, {@code loopN}, {@code loopN/P} or a port GUID text
     * @param full full (true) or limited (false) membership
     */
    public record Member(String selector, boolean full) {

        /** Whether the member selector matches a port. */
        boolean matches(String deviceName, int portNumber, Guid portGuid) {
            String s = selector;
            if (s.equals("ALL") || s.equals("ALL_CAS")) {
                return true;
            }
            if (s.equals(deviceName) || s.equals(deviceName + "/" + portNumber)) {
                return true;
            }
            if (s.startsWith("0x") || s.startsWith("0X")) {
                return Guid.parse(s).equals(portGuid);
            }
            return false;
        }
    }

    /**
     * Parses one partition line.
     *
     * @throws IllegalArgumentException naming the line and what is wrong
     */
    public static PartitionConfig parse(String line) {
        String text = line.strip();
        if (text.endsWith(";")) {
            text = text.substring(0, text.length() - 1).strip();
        }
        int colon = text.indexOf(':');
        if (colon < 0) {
            throw invalid(line, "expected 'Name=0xPKEY[, flags] : members'");
        }
        String[] head = text.substring(0, colon).split(",");
        String[] nameKey = head[0].split("=", 2);
        if (nameKey.length != 2 || nameKey[0].isBlank()) {
            throw invalid(line, "expected 'Name=0xPKEY' before the flags");
        }
        String name = nameKey[0].strip();
        int pkey;
        try {
            pkey = Integer.decode(nameKey[1].strip());
        } catch (NumberFormatException e) {
            throw invalid(line, "P_Key '" + nameKey[1].strip() + "' is not a number");
        }
        int base = pkey & 0x7FFF;
        if (pkey < 0 || pkey > 0xFFFF || base == 0) {
            throw invalid(line, String.format("P_Key 0x%x: allowed 0x0001..0x7fff (membership comes from the members)", pkey));
        }
        boolean ipoib = false;
        IbMtu mtu = IbMtu.MTU_2048;
        Rate rate = Rate.RATE_10_GBPS;
        int sl = 0;
        int scope = 2;
        QKey qkey = DEFAULT_QKEY;
        boolean defaultFull = false;
        for (int i = 1; i < head.length; i++) {
            String flag = head[i].strip();
            if (flag.isEmpty()) {
                continue;
            }
            String[] kv = flag.split("=", 2);
            String key = kv[0].strip().toLowerCase(Locale.ROOT);
            String value = kv.length == 2 ? kv[1].strip() : null;
            try {
                switch (key) {
                    case "ipoib" -> ipoib = true;
                    case "mtu" -> mtu = IbMtu.fromCode(number(line, key, value));
                    case "rate" -> rate = Rate.fromCode(number(line, key, value));
                    case "sl" -> sl = range(line, key, number(line, key, value), 0, 15);
                    case "scope" -> scope = range(line, key, number(line, key, value), 1, 15);
                    case "q_key", "qkey" -> qkey = QKey.parse(require(line, key, value));
                    case "defmember" -> defaultFull = membership(line, require(line, key, value));
                    default -> throw invalid(line, "unknown flag '" + kv[0].strip()
                            + "': allowed ipoib, mtu, rate, sl, scope, Q_Key, defmember");
                }
            } catch (IllegalArgumentException e) {
                if (e.getMessage().startsWith("invalid partition")) {
                    throw e;
                }
                throw invalid(line, "flag " + kv[0].strip() + ": " + e.getMessage());
            }
        }
        List<Member> members = new ArrayList<>();
        for (String m : text.substring(colon + 1).split(",")) {
            String member = m.strip();
            if (member.isEmpty()) {
                continue;
            }
            String[] kv = member.split("=", 2);
            String selector = kv[0].strip();
            if (!selector.matches("ALL|ALL_CAS|loop\\d+(/\\d+)?|0[xX][0-9a-fA-F]{16}")) {
                throw invalid(line, "member '" + selector + "': allowed ALL, ALL_CAS, loopN, loopN/P or a port GUID 0x...");
            }
            boolean full = kv.length == 2 ? membership(line, kv[1].strip()) : defaultFull;
            members.add(new Member(selector, full));
        }
        return new PartitionConfig(name, base, ipoib, mtu, rate, sl, scope, qkey, List.copyOf(members));
    }

    private static boolean membership(String line, String value) {
        return switch (value.toLowerCase(Locale.ROOT)) {
            case "full", "both" -> true;
            case "limited" -> false;
            default -> throw invalid(line, "membership '" + value + "': allowed full, limited");
        };
    }

    private static String require(String line, String key, String value) {
        if (value == null || value.isEmpty()) {
            throw invalid(line, "flag " + key + " needs a value");
        }
        return value;
    }

    private static int number(String line, String key, String value) {
        try {
            return Integer.decode(require(line, key, value));
        } catch (NumberFormatException e) {
            throw invalid(line, "flag " + key + " value '" + value + "' is not a number");
        }
    }

    private static int range(String line, String key, int value, int min, int max) {
        if (value < min || value > max) {
            throw invalid(line, "flag " + key + " value " + value + ": allowed " + min + ".." + max);
        }
        return value;
    }

    private static IllegalArgumentException invalid(String line, String problem) {
        return new IllegalArgumentException("invalid partition '" + line.strip() + "': " + problem);
    }
}
