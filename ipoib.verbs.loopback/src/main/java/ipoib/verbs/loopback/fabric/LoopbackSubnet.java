package ipoib.verbs.loopback.fabric;

import ipoib.api.verbs.Device;
import ipoib.api.verbs.ProviderStatus;
import ipoib.api.verbs.VerbsProvider;
import ipoib.runtime.Clock;
import ipoib.runtime.FailureHandler;
import ipoib.runtime.RateLimitedFailures;
import ipoib.runtime.ThreadControlLoop;
import ipoib.api.sa.MadTransport;
import ipoib.sa.SaClient;
import ipoib.verbs.loopback.agent.ManagementPlane;
import ipoib.verbs.loopback.agent.SubnetManagementPlane;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A whole loopback subnet as a verbs provider, in plain Java: the fabric, its emulated SA, and
 * an SA client on every port. The OSGi component wraps one; benchmarks and embedders without a
 * framework use it directly.
 *
 * <p>With a management plane ({@link ManagementPlane}: the agents on the subnet model) clients
 * such as OpenSM and infiniband-diags attach to the subnet through ibsim's protocol. With an
 * external SM (sm=external) the emulated SM and SA stand down: the SM that attaches assigns the
 * LIDs, P_Key tables and forwarding tables, and each port's SA client sends its MADs to that SM
 * through the plane ({@link PlaneMadTransport}).
 */
public final class LoopbackSubnet implements VerbsProvider, AutoCloseable {
    /** The SM_Key Linux sends and the clients use by default: 0, untrusted (no SM secret on a host). */
    public static final long UNTRUSTED_SM_KEY = 0;

    private final Fabric fabric;
    private final SubnetAdministratorEmulator sa;
    /** The SA clients' timers (retransmissions, timeouts, RMPP stalls), one thread for the subnet. */
    private final ThreadControlLoop saClientLoop;
    private final RateLimitedFailures saClientFailures = new RateLimitedFailures(FailureHandler.JAVA_LOGGING,
            Clock.SYSTEM, 10, TimeUnit.SECONDS);
    private final List<SaClient> clients = new ArrayList<>();
    private final SubnetManagementPlane plane;
    private final List<PlaneMadTransport> planeTransports = new ArrayList<>();

    /**
     * Builds and starts the subnet.
     *
     * @param saTimeoutMillis SA client wait per attempt
     * @param saAttempts SA client attempts per request
     */
    public LoopbackSubnet(FabricConfig config, long saTimeoutMillis, int saAttempts) {
        this(config, saTimeoutMillis, saAttempts, UNTRUSTED_SM_KEY);
    }

    /**
     * Builds and starts the subnet with SA clients that send {@code smKey} (1, the emulated SM's
     * key, makes them trusted: member tables then list every member).
     */
    public LoopbackSubnet(FabricConfig config, long saTimeoutMillis, int saAttempts, long smKey) {
        this(config, saTimeoutMillis, saAttempts, smKey, false, false);
    }

    /**
     * Builds and starts the subnet, with the management plane (the agents on the subnet model)
     * when {@code managementPlane} or {@code externalSm}.
     *
     * @param externalSm sm=external: no emulated SM and SA; the SM that attaches to the plane manages the subnet
     */
    public LoopbackSubnet(FabricConfig config, long saTimeoutMillis, int saAttempts, long smKey,
                          boolean managementPlane, boolean externalSm) {
        this.fabric = new Fabric(config);
        this.plane = managementPlane || externalSm ? new SubnetManagementPlane(fabric.topology()) : null;
        if (externalSm) {
            fabric.startManagedExternally();
        } else {
            fabric.start();
        }
        this.sa = new SubnetAdministratorEmulator(fabric);
        this.saClientLoop = new ThreadControlLoop("loopback-sa-client", saClientFailures);
        for (LoopDevice d : fabric.devices()) {
            for (LoopPort p : d.loopPorts()) {
                MadTransport transport = externalSm ? attach(p) : sa.transport(p);
                SaClient client = new SaClient(transport, saClientLoop, saTimeoutMillis, saAttempts, smKey);
                clients.add(client);
                p.setManagement(transport, client);
            }
        }
    }

    /** Attaches a port's SA traffic to the plane at the port, as an in-JVM client. */
    private MadTransport attach(LoopPort p) {
        PlaneMadTransport t = new PlaneMadTransport(p);
        planeTransports.add(t);
        t.attached(plane.attachAt(p.model, false, t));
        return t;
    }

    /** The management plane clients attach through (ibsim's protocol server), or null. */
    public ManagementPlane managementPlane() {
        return plane;
    }

    public Fabric fabric() {
        return fabric;
    }

    public SubnetAdministratorEmulator subnetAdministrator() {
        return sa;
    }

    @Override
    public String name() {
        return "loopback";
    }

    @Override
    public ProviderStatus status() {
        return fabric.isClosed() ? ProviderStatus.unavailable("the loopback fabric is stopped")
                : ProviderStatus.available(fabric.devices().size() + " loopback HCAs");
    }

    @Override
    public List<Device> devices() {
        return List.copyOf(fabric.devices());
    }

    /** Failures of the SA clients' timer tasks so far (each is logged, at most one per 10 s). */
    public long saClientLoopFailures() {
        return saClientFailures.count();
    }

    @Override
    public void close() {
        clients.forEach(SaClient::close);
        planeTransports.forEach(PlaneMadTransport::close);
        saClientLoop.close();
        sa.close();
        fabric.close();
        try {
            saClientLoop.awaitTermination(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
