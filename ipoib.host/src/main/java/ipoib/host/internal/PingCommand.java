package ipoib.host.internal;

import ipoib.api.host.HostRoute;
import ipoib.api.host.IpHost;
import ipoib.api.resolve.AddressBits;
import ipoib.runtime.Clock;
import java.io.PrintStream;
import java.net.Inet6Address;
import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;
import org.apache.felix.service.command.CommandSession;
import org.apache.felix.service.command.Descriptor;
import org.apache.felix.service.command.Parameter;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;

/**
 * {@code ipoib:ping}: one routing decision for the whole run ({@link IpHost#route}), then echo
 * requests on that route ({@link IpHost#echo(HostRoute, int, int, int, Duration)}) paced by
 * {@link PingRun}.
 */
@Component(service = PingCommand.class, property = {"osgi.command.scope=ipoib", "osgi.command.function=ping",
        "ipoib.command.completion=ping -I <interface> <address>",
        "ipoib.command.completion=ping <address>"})
public final class PingCommand {
    static final String USAGE = "ipoib:ping [-I interface] [-c count] [-i interval s] [-s size] [-W timeout s] "
            + "<address>[%interface]";

    private final IpHost host;
    private final CommandContext context;
    private final Clock clock;
    private final PingRun.Waiter waiter;

    @Activate
    public PingCommand(@Reference IpHost host, @Reference CommandContext context) {
        this(host, context, Clock.SYSTEM, PingRun.Waiter.REAL);
    }

    PingCommand(IpHost host, CommandContext context, Clock clock, PingRun.Waiter waiter) {
        this.host = host;
        this.context = context;
        this.clock = clock;
        this.waiter = waiter;
    }

    @Descriptor("send ICMP/ICMPv6 echo requests and print each reply's time and a loss summary; fails when no reply comes")
    public String ping(CommandSession session,
                       @Descriptor("interface to send on") @Parameter(names = "-I", absentValue = "") String link,
                       @Descriptor("requests to send, 1..100000 (default 4)") @Parameter(names = "-c", absentValue = "4")
                       String count,
                       @Descriptor("seconds between requests, 0.01..60 (default 1)") @Parameter(names = "-i",
                               absentValue = "1") String interval,
                       @Descriptor("octets of payload (default 56)") @Parameter(names = "-s", absentValue = "56")
                       String size,
                       @Descriptor("seconds to wait for each reply, 0.05..60 (default 2)") @Parameter(names = "-W",
                               absentValue = "2") String timeout,
                       @Descriptor("<address>[%interface]") String... destination) throws InterruptedException {
        int c = CommandContext.integer(count, "-c", 1, 100_000, USAGE);
        double i = CommandContext.number(interval, "-i", 0.01, 60, USAGE);
        int s = CommandContext.integer(size, "-s", 0, 65_507, USAGE);
        double w = CommandContext.number(timeout, "-W", 0.05, 60, USAGE);
        CommandContext.Target t = context.target(destination, link, USAGE);
        boolean v6 = t.address() instanceof Inet6Address;
        HostRoute route = host.route(t.link(), t.address()).orElseThrow(() -> new IllegalStateException(
                "connect: no route to " + AddressBits.text(t.address())
                        + (t.link() == null ? ": no UP interface has an address whose prefix holds it"
                        : " via " + t.link() + ": it has no usable " + (v6 ? "IPv6" : "IPv4") + " address")));
        CommandContext.Bridged bridge = context.bridge(route.link());
        if (bridge != null) {
            throw new IllegalStateException(bridgedMessage(route.link(), bridge, t.address()));
        }
        PrintStream out = session == null ? System.out : session.getConsole();
        int identifier = ThreadLocalRandom.current().nextInt(0x10000);
        Duration perReply = Duration.ofMillis((long) (w * 1000));
        PingRun run = new PingRun(new PingRun.Settings(AddressBits.text(t.address()), AddressBits.text(route.source()),
                route.link(), v6, c, (long) (i * 1e9), s, perReply.toNanos()),
                sequence -> host.echo(route, identifier, sequence & 0xFFFF, s, perReply), clock, waiter, out);
        try {
            return run.run();
        } catch (IllegalArgumentException tooBig) {
            throw CommandContext.usage(USAGE, "-s " + s + ": " + tooBig.getMessage());
        }
    }

    /**
     * Why echo cannot work on a bridged link: the kernel owns its addresses, so the replies go to
     * the kernel and never to this command; and what to run instead.
     */
    static String bridgedMessage(String link, CommandContext.Bridged bridge, java.net.InetAddress destination) {
        String where = bridge.netns().isEmpty() ? "" : " in network namespace " + bridge.netns();
        String ping = (destination instanceof Inet6Address ? "ping -6 " : "ping ") + AddressBits.text(destination)
                + (destination instanceof Inet6Address && destination.isLinkLocalAddress() ? "%" + bridge.device() : "");
        return "ipoib:ping: interface " + link + " is bridged to the Linux device " + bridge.device() + where
                + " (ipoib:netdev): the kernel owns its addresses and answers echo there, so replies would reach the"
                + " kernel, not this command; ping with the kernel's tools instead: "
                + (bridge.netns().isEmpty() ? "" : "ip netns exec " + bridge.netns() + " ") + ping;
    }
}
