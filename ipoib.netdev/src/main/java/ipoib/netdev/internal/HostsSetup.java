package ipoib.netdev.internal;

import ipoib.api.link.FrameHandler;
import ipoib.runtime.LinkNames;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Dictionary;
import java.util.Hashtable;
import java.util.List;
import org.osgi.framework.BundleContext;
import org.osgi.framework.InvalidSyntaxException;
import org.osgi.service.cm.Configuration;
import org.osgi.service.cm.ConfigurationAdmin;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.log.Logger;
import org.osgi.service.log.LoggerFactory;

/**
 * A ready-made subnet of hosts ({@code ./ipoib --hosts N}, framework property
 * {@value #HOSTS_PROPERTY}): N loopback HCAs, an interface on port 1 of each in the default
 * partition, and each bridged into network namespace {@code hK} as device {@code ib0} with
 * {@code 10.0.0.K/24} (its IPv6 link-local address comes from Neighbor Discovery). Framework
 * property {@value #NETNS_PROPERTY} replaces the namespaces' prefix {@code h}, so that a test's
 * hosts do not take the names a user's or another test's hosts have. Host K runs on
 * HCA {@code loopK-1}, whose interface has the link's default name ({@link LinkNames}: the CA
 * index in hex, so h11 is {@code iba_1_ffff} and h17 {@code ib10_1_ffff}). Written as
 * configurations, like the appliance's defaults, and only when no interface is bridged yet.
 */
@Component(immediate = true, service = {})
public final class HostsSetup {
    /** Framework property: the number of hosts (1..{@value #MAX_HOSTS}). */
    public static final String HOSTS_PROPERTY = "ipoib.hosts";
    static final int MAX_HOSTS = 256;
    /** Hosts that fit in one /24 (.1 to .254): up to this many, host K is 10.0.0.K/24. */
    private static final int HOSTS_PER_24 = 254;
    /** Framework property: the prefix of the hosts' network namespaces ({@code h}: h1..hN). */
    public static final String NETNS_PROPERTY = "ipoib.hosts.netns";
    static final String DEFAULT_NETNS_PREFIX = "h";

    /**
     * The namespaces' prefix the framework property gives (blank or absent: {@code h}); an
     * {@link IllegalArgumentException} naming what is allowed when host 256's name would not be a
     * namespace name the netdev configuration accepts.
     */
    static String netnsPrefix(String value) {
        if (value == null || value.isBlank()) {
            return DEFAULT_NETNS_PREFIX;
        }
        String prefix = value.strip();
        if (prefix.length() > 61 || !prefix.matches("[A-Za-z0-9_.-]+")) {
            throw new IllegalArgumentException("framework property " + NETNS_PROPERTY + " is '" + value
                    + "': allowed 1..61 characters of A-Z a-z 0-9 _ . - (the hosts' namespaces are PREFIX1..PREFIXN)");
        }
        return prefix;
    }

    /**
     * The address of host {@code host} of {@code hosts}: {@code 10.0.0.K/24} for up to 254 hosts;
     * with more, all are in {@code 10.0.0.0/16} and host K is {@code 10.0.X.Y} with X = (K - 1) / 254
     * and Y = (K - 1) % 254 + 1 (h1..h254 keep their address, h255 is 10.0.1.1), so that no host
     * takes a subnet's network or broadcast address of the /24 it looks like.
     */
    static String address(int host, int hosts) {
        if (hosts <= HOSTS_PER_24) {
            return "10.0.0." + host + "/24";
        }
        return "10.0." + (host - 1) / HOSTS_PER_24 + "." + ((host - 1) % HOSTS_PER_24 + 1) + "/16";
    }

    /** The interface of host {@code host}: the default name of port 1, P_Key 0xffff of HCA host - 1. */
    static String linkName(int host) {
        return LinkNames.defaultName(host - 1, 1, 0xffff);
    }

    /** The hosts' namespaces, made together before their devices come: {@code prefix}1..{@code prefix}{@code hosts}. */
    static List<String> namespaces(String prefix, int hosts) {
        List<String> namespaces = new ArrayList<>();
        for (int k = 1; k <= hosts; k++) {
            namespaces.add(prefix + k);
        }
        return namespaces;
    }

    /**
     * The configuration of host {@code host}'s interface: port 1 of its HCA, the default partition,
     * and reference targets that bind the link to the frame handlers and link listeners of no
     * particular link and of its own alone (a bridge registers both for its link): without them
     * every link would bind every bridge's services, N × N bindings for N hosts.
     */
    static Dictionary<String, Object> linkConfiguration(int host) {
        String own = "(|(!(" + FrameHandler.LINK_PROPERTY + "=*))(" + FrameHandler.LINK_PROPERTY + "=" + linkName(host)
                + "))";
        Dictionary<String, Object> l = new Hashtable<>();
        l.put("device", "loop" + (host - 1));
        l.put("port", 1);
        l.put("pkey", "0xffff");
        l.put("FrameHandler.target", own);
        l.put("LinkListener.target", own);
        return l;
    }

    @Activate
    public HostsSetup(BundleContext context, @Reference ConfigurationAdmin configurationAdmin,
                      @Reference(service = LoggerFactory.class) Logger log) {
        failure = null;
        String value = context.getProperty(HOSTS_PROPERTY);
        if (value == null || value.isBlank()) {
            return;
        }
        int hosts;
        try {
            hosts = Integer.parseInt(value.trim());
        } catch (NumberFormatException e) {
            hosts = -1;
        }
        if (hosts < 1 || hosts > MAX_HOSTS) {
            failed(log, "framework property " + HOSTS_PROPERTY + " is '" + value + "': allowed 1.." + MAX_HOSTS);
            return;
        }
        String prefix;
        try {
            prefix = netnsPrefix(context.getProperty(NETNS_PROPERTY));
        } catch (IllegalArgumentException e) {
            failed(log, e.getMessage());
            return;
        }
        String missing = Tun.missingPrivilege();
        if (missing != null) {
            failed(log, "--hosts " + hosts + ": cannot create the hosts' network devices: " + missing);
            return;
        }
        try {
            Configuration[] existing = configurationAdmin.listConfigurations(
                    "(service.factoryPid=" + NetdevComponent.FACTORY_PID + ")");
            if (existing != null && existing.length > 0) {
                return;
            }
            List<String> namespaces = namespaces(prefix, hosts);
            try {
                // All at once (one ip process), not one per device as each comes.
                Namespaces.createMissing(namespaces);
            } catch (IOException e) {
                log.warn("--hosts " + hosts + ": " + e.getMessage() + " (each device tries again)");
            }
            Configuration fabric = configurationAdmin.getConfiguration("ipoib.verbs.loopback", "?");
            Dictionary<String, Object> f = fabric.getProperties() == null ? new Hashtable<>() : fabric.getProperties();
            f.put("hcas", hosts);
            fabric.update(f);
            for (int k = 1; k <= hosts; k++) {
                String link = linkName(k);
                configurationAdmin.getFactoryConfiguration("ipoib.link", "host" + k, "?").update(linkConfiguration(k));
                Dictionary<String, Object> n = new Hashtable<>();
                n.put("link", link);
                n.put("link.target", "(ipoib.link=" + link + ")");
                n.put("device", "ib0");
                n.put("netns", namespaces.get(k - 1));
                n.put("addresses", new String[] {address(k, hosts)});
                configurationAdmin.getFactoryConfiguration(NetdevComponent.FACTORY_PID, link, "?").update(n);
            }
            log.info("created " + hosts + " hosts " + prefix + "1.." + prefix + hosts + " (" + address(1, hosts) + " .. "
                    + address(hosts, hosts) + ")");
        } catch (IOException | InvalidSyntaxException e) {
            failed(log, "--hosts " + hosts + ": could not write the configurations: " + e.getMessage());
        }
    }

    /**
     * Why the hosts {@code --hosts} asked for were not set up (null: they were, or none were
     * asked for): {@code ipoib:netdev await} fails with it at once instead of waiting for them.
     */
    static String failure() {
        return failure;
    }

    private static volatile String failure;

    private static void failed(Logger log, String why) {
        failure = why;
        log.error(why);
    }
}
