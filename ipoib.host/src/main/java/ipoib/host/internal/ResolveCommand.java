package ipoib.host.internal;

import ipoib.api.host.HostRoute;
import ipoib.api.host.IpHost;
import ipoib.api.resolve.AddressBits;
import ipoib.api.resolve.NeighbourResolver;
import ipoib.api.resolve.PathInfo;
import ipoib.api.resolve.PathInfoAnswer;
import java.net.Inet6Address;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.felix.service.command.Descriptor;
import org.apache.felix.service.command.Parameter;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;

/** {@code ipoib:resolve}: the path information of a destination (the {@code SIOCGIPOIBPATH} query). */
@Component(service = ResolveCommand.class, property = {"osgi.command.scope=ipoib", "osgi.command.function=resolve",
        "ipoib.command.completion=resolve -I <interface> <address>",
        "ipoib.command.completion=resolve <address>"})
public final class ResolveCommand {
    static final String USAGE = "ipoib:resolve [-I interface] [-W seconds] <address>[%interface]";

    private final IpHost host;
    private final CommandContext context;

    @Activate
    public ResolveCommand(@Reference IpHost host, @Reference CommandContext context) {
        this.host = host;
        this.context = context;
    }

    @Descriptor("path information of a destination (the SIOCGIPOIBPATH query): DGID/SGID, DLID/SLID, flow label, "
            + "P_Key, SL, MTU, rate, packet lifetime, hop limit, traffic class; waits while it resolves")
    public String resolve(@Descriptor("interface (default: the route's)") @Parameter(names = "-I", absentValue = "")
                          String link,
                          @Descriptor("seconds to wait while it resolves, 0.05..600 (default 5)")
                          @Parameter(names = "-W", absentValue = "5") String wait,
                          @Descriptor("<address>[%interface]") String... destination) throws InterruptedException {
        double seconds = CommandContext.number(wait, "-W", 0.05, 600, USAGE);
        CommandContext.Target t = context.target(destination, link, USAGE);
        String linkName = t.link();
        if (linkName == null) {
            linkName = host.route(null, t.address()).map(HostRoute::link).orElseThrow(() -> CommandContext.usage(USAGE,
                    "no interface has an address on the way to " + AddressBits.text(t.address()) + "; name one with -I"));
        }
        NeighbourResolver r = context.requireResolver(t.address() instanceof Inet6Address);
        PathInfoAnswer answer = r.pathInfo(linkName, t.address());
        String head = AddressBits.text(t.address()) + " on " + linkName;
        if (answer instanceof PathInfoAnswer.NoSuchNode n) {
            throw new IllegalStateException(head + ": no such node: " + n.reason());
        }
        if (answer instanceof PathInfoAnswer.Ready ready) {
            return head + ": resolved\n" + describe(ready.path());
        }
        CompletableFuture<PathInfo> pending = ((PathInfoAnswer.Pending) answer).path().toCompletableFuture();
        try {
            return head + ": resolved after waiting\n"
                    + describe(pending.get((long) (seconds * 1000), TimeUnit.MILLISECONDS));
        } catch (ExecutionException e) {
            throw new IllegalStateException(head + ": no such node: " + e.getCause().getMessage());
        } catch (TimeoutException e) {
            throw new IllegalStateException(head + ": not resolved within " + CommandContext.trim(seconds)
                    + " s (still pending)");
        }
    }

    static String describe(PathInfo p) {
        return String.format("    dgid %s  sgid %s%n    dlid %s  slid %s  sl %d  flow label 0x%05x  pkey %s%n"
                        + "    mtu %s  rate %s  packet lifetime %d  hop limit %d  traffic class %d%n",
                p.destinationGid(), p.sourceGid(), p.destinationLid(), p.sourceLid(), p.serviceLevel(), p.flowLabel(),
                p.pkey(), p.mtu(), p.rate(), p.packetLifetime(), p.hopLimit(), p.trafficClass());
    }
}
