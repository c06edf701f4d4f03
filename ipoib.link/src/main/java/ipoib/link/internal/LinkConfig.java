package ipoib.link.internal;

import ipoib.api.PKey;
import java.util.Map;

/**
 * A validated interface configuration. Every bad value is refused with the property, the value
 * and the allowed range.
 */
record LinkConfig(String name, String device, int port, PKey pkey, int scope, boolean searchScope,
                  int sendQueueDepth, int receiveQueueDepth, int joinTimeoutMillis, int joinRetryCount,
                  int transmitTimeoutMillis, boolean createBroadcastGroup) {

    /** Scopes tried by {@code scope=search}, narrowest first (RFC 4391 §4.1). */
    static final int[] SEARCH_SCOPES = {0x2, 0x5, 0x8, 0xE};

    static LinkConfig from(LinkConfiguration c, int deviceIndex) {
        PKey pkey;
        try {
            pkey = PKey.parse(c.pkey());
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("invalid ipoib interface property 'pkey' value '" + c.pkey()
                    + "': allowed 0x0001..0x7fff and 0x8001..0xffff");
        }
        String device = c.device() == null ? "" : c.device().strip();
        if (device.isEmpty()) {
            throw new IllegalArgumentException("invalid ipoib interface property 'device' value '': a device name is required");
        }
        checkPort(c.port());
        boolean search = "search".equalsIgnoreCase(c.scope().strip());
        int scope = 2;
        if (!search) {
            try {
                scope = Integer.decode(c.scope().strip());
            } catch (NumberFormatException e) {
                scope = -1;
            }
            if (scope < 1 || scope > 15) {
                throw new IllegalArgumentException("invalid ipoib interface property 'scope' value '" + c.scope()
                        + "': allowed 1..15 (2 = link-local) or 'search'");
            }
        }
        // The numeric ranges are declared once, in LinkConfiguration, and checked by ConfigCheck.
        String name = c.name() == null || c.name().isBlank()
                ? defaultName(deviceIndex, c.port(), pkey)
                : c.name().strip();
        checkName(name);
        return new LinkConfig(name, device, c.port(), pkey, scope, search, c.sendQueueDepth(), c.receiveQueueDepth(),
                c.mcastJoinTimeoutMillis(), c.mcastRetryCount(), c.transmitTimeoutMillis(), c.createBroadcastGroup());
    }

    /** Checks a port number as the component does. */
    static void checkPort(int port) {
        range("port", port, 1, 254);
    }

    /** Checks an interface name as the component does. */
    static void checkName(String name) {
        if (!name.matches("[A-Za-z0-9_.-]{1,32}")) {
            throw new IllegalArgumentException("invalid ipoib interface property 'name' value '" + name
                    + "': allowed 1..32 characters of A-Z a-z 0-9 _ . -");
        }
    }

    /** The design document's default name {@code ibX_Y_Z}: CA index, port and P_Key in hex. */
    static String defaultName(int deviceIndex, int port, PKey pkey) {
        return String.format("ib%x_%x_%04x", deviceIndex, port, pkey.value());
    }

    /** The index at the end of a device name (loop1 → 1, mlx5_0 → 0), or 0. */
    static int deviceIndex(String device) {
        int i = device.length();
        while (i > 0 && Character.isDigit(device.charAt(i - 1))) {
            i--;
        }
        return i == device.length() ? 0 : Integer.parseInt(device.substring(i));
    }

    private static void range(String property, int value, int min, int max) {
        if (value < min || value > max) {
            throw new IllegalArgumentException("invalid ipoib interface property '" + property + "' value " + value
                    + ": allowed " + min + ".." + max);
        }
    }

    /** Service properties of the interface: where it is, and the knobs the multicast manager follows. */
    Map<String, Object> describe() {
        return Map.of("device", device, "port", port, "pkey", pkey.toString(),
                "scope", searchScope ? "search" : Integer.toString(scope),
                ipoib.api.link.IpoibLink.MCAST_JOIN_TIMEOUT_PROPERTY, joinTimeoutMillis,
                ipoib.api.link.IpoibLink.MCAST_RETRY_COUNT_PROPERTY, joinRetryCount);
    }
}
