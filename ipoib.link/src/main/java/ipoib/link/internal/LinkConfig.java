package ipoib.link.internal;

import ipoib.api.PKey;
import ipoib.runtime.ConfigCheck;
import ipoib.runtime.LinkNames;
import ipoib.runtime.ShownValue;
import java.util.Map;
import java.util.Objects;

/**
 * A validated interface configuration: what {@link LinkEngine} runs. Every bad value is refused
 * with the property, the value and the allowed range; the numeric ranges are the ones declared
 * once in {@link LinkConfiguration} (checked through its metatype), so a configuration built in
 * plain Java (tests, benchmarks) is held to the same rules as one from Configuration Admin.
 *
 * @param name the interface name, 1..32 of A-Z a-z 0-9 _ . -
 * @param scope the broadcast-GID scope 1..15 (ignored while {@code searchScope})
 */
public record LinkConfig(String name, String device, int port, PKey pkey, int scope, boolean searchScope,
                         int sendQueueDepth, int receiveQueueDepth, int joinTimeoutMillis, int joinRetryCount,
                         int transmitTimeoutMillis, boolean createBroadcastGroup) {

    /** Scopes tried by {@code scope=search}, narrowest first (RFC 4391 §4.1). */
    static final int[] SEARCH_SCOPES = {0x2, 0x5, 0x8, 0xE};

    /** Every property against its range, type and options as declared once in {@link LinkConfiguration}. */
    static final ConfigCheck CHECK = ConfigCheck.of(LinkConfiguration.class);

    /** @throws IllegalArgumentException naming the property, the value and what is allowed */
    public LinkConfig {
        Objects.requireNonNull(pkey, "pkey");
        if (device == null || device.isBlank()) {
            throw new IllegalArgumentException("invalid ipoib interface property 'device' value '': a device name is required: allowed an HCA name such as loop0");
        }
        checkName(name);
        if (scope < 1 || scope > 15) {
            throw new IllegalArgumentException("invalid ipoib interface property 'scope' value " + scope
                    + ": allowed 1..15 (2 = link-local) or 'search'");
        }
        CHECK.check(Map.of("port", port, "sendQueueDepth", sendQueueDepth, "receiveQueueDepth", receiveQueueDepth,
                "mcastJoinTimeoutMillis", joinTimeoutMillis, "mcastRetryCount", joinRetryCount,
                "transmitTimeoutMillis", transmitTimeoutMillis));
    }

    /**
     * An interface with the defaults of {@link LinkConfiguration}: link-local scope, queue depths
     * 128/256, 1 s join timeout, 5 join retries, 5 s transmit timeout, the broadcast group created
     * when missing.
     */
    public static LinkConfig of(String name, String device, int port, PKey pkey) {
        return new LinkConfig(name, device, port, pkey, 2, false, 128, 256, 1000, 5, 5000, true);
    }

    /** This configuration with other send and receive queue depths (1..8192 each). */
    public LinkConfig withQueueDepths(int send, int receive) {
        return new LinkConfig(name, device, port, pkey, scope, searchScope, send, receive, joinTimeoutMillis,
                joinRetryCount, transmitTimeoutMillis, createBroadcastGroup);
    }

    /**
     * A configuration as Configuration Admin delivers it: every raw property against the metatype
     * (unknown ones refused), then the forms the metatype cannot say (P_Key, scope, name).
     *
     * @throws IllegalArgumentException naming each refused property, its value and what is allowed
     */
    static LinkConfig checked(LinkConfiguration c, Map<String, ?> properties) {
        CHECK.check(properties);
        return from(c, deviceIndex(c.device()));
    }

    static LinkConfig from(LinkConfiguration c, int deviceIndex) {
        PKey pkey;
        try {
            pkey = PKey.parse(c.pkey());
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("invalid ipoib interface property 'pkey' value " + ShownValue.of(c.pkey())
                    + ": allowed 0x0001..0x7fff and 0x8001..0xffff");
        }
        String device = c.device() == null ? "" : c.device().strip();
        boolean search = "search".equalsIgnoreCase(c.scope().strip());
        int scope = 2;
        if (!search) {
            try {
                scope = Integer.decode(c.scope().strip());
            } catch (NumberFormatException e) {
                scope = -1;
            }
            if (scope < 1 || scope > 15) {
                throw new IllegalArgumentException("invalid ipoib interface property 'scope' value " + ShownValue.of(c.scope())
                        + ": allowed 1..15 (2 = link-local) or 'search'");
            }
        }
        // The numeric ranges are declared once, in LinkConfiguration, and checked by ConfigCheck.
        String name = c.name() == null || c.name().isBlank()
                ? defaultName(deviceIndex, c.port(), pkey)
                : c.name().strip();
        return new LinkConfig(name, device, c.port(), pkey, scope, search, c.sendQueueDepth(), c.receiveQueueDepth(),
                c.mcastJoinTimeoutMillis(), c.mcastRetryCount(), c.transmitTimeoutMillis(), c.createBroadcastGroup());
    }

    /**
     * The name of the interface a stored configuration makes, as the component derives it; null
     * when the configuration cannot run (a bad P_Key or port).
     */
    public static String nameOf(Map<String, ?> properties) {
        try {
            LinkConfiguration c = ipoib.runtime.ConfigValues.of(LinkConfiguration.class, properties);
            return from(c, deviceIndex(c.device())).name();
        } catch (IllegalArgumentException e) {
            return null;
        }
    }

    /** Checks an interface name as the component does. */
    static void checkName(String name) {
        if (name == null || !name.matches("[A-Za-z0-9_.-]{1,32}")) {
            throw new IllegalArgumentException("invalid ipoib interface property 'name' value " + ShownValue.of(name)
                    + ": allowed 1..32 characters of A-Z a-z 0-9 _ . -");
        }
    }

    /** The default name {@code ibX_Y_Z}: CA index, port and P_Key in hex ({@link LinkNames}). */
    public static String defaultName(int deviceIndex, int port, PKey pkey) {
        return LinkNames.defaultName(deviceIndex, port, pkey.value());
    }

    /** The index at the end of a device name (loop1 → 1, mlx5_0 → 0), or 0. */
    public static int deviceIndex(String device) {
        return LinkNames.caIndex(device);
    }

    /** Service properties of the interface: where it is, and the knobs the multicast manager follows. */
    Map<String, Object> describe() {
        return Map.of("device", device, "port", port, "pkey", pkey.toString(),
                "scope", searchScope ? "search" : Integer.toString(scope),
                ipoib.api.link.IpoibLink.MCAST_JOIN_TIMEOUT_PROPERTY, joinTimeoutMillis,
                ipoib.api.link.IpoibLink.MCAST_RETRY_COUNT_PROPERTY, joinRetryCount);
    }
}
