package ipoib.verbs.loopback.fabric;

import ipoib.api.verbs.Device;
import ipoib.api.verbs.ProviderStatus;
import ipoib.api.verbs.VerbsProvider;
import ipoib.runtime.Clock;
import ipoib.runtime.FailureHandler;
import ipoib.runtime.RateLimitedFailures;
import ipoib.runtime.ThreadControlLoop;
import ipoib.sa.SaClient;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A whole loopback subnet as a verbs provider, in plain Java: the fabric, its emulated SA, and
 * an SA client on every port. The OSGi component wraps one; benchmarks and embedders without a
 * framework use it directly.
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
        this.fabric = new Fabric(config);
        fabric.start();
        this.sa = new SubnetAdministratorEmulator(fabric);
        this.saClientLoop = new ThreadControlLoop("loopback-sa-client", saClientFailures);
        for (LoopDevice d : fabric.devices()) {
            for (LoopPort p : d.loopPorts()) {
                SaClient client = new SaClient(sa.transport(p), saClientLoop, saTimeoutMillis, saAttempts, smKey);
                clients.add(client);
                p.setManagement(sa.transport(p), client);
            }
        }
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
