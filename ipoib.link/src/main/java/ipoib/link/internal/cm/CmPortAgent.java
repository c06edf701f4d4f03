package ipoib.link.internal.cm;

import ipoib.api.Gid;
import ipoib.api.verbs.CmTransport;
import ipoib.api.verbs.Port;
import ipoib.cm.CmAgent;
import ipoib.cm.CmEndpoint;
import ipoib.cm.CmTimeouts;
import ipoib.codec.DecodeException;
import ipoib.codec.cm.CmMad;
import ipoib.runtime.Clock;
import ipoib.runtime.FailureHandler;
import ipoib.runtime.RateLimitedFailures;
import ipoib.runtime.ThreadControlLoop;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.util.IdentityHashMap;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;

/**
 * The CM agent of one port (IBA 12.9: the CM of a port serves every consumer on it), shared by the
 * interfaces of that port and kept while one of them is UP: an interface in datagram mode does
 * not listen, so a REQ to it is rejected with Invalid Service ID, as the kernel's {@code ib_cm}
 * rejects it under Linux. Runs on its own control thread {@code ipoib-cm-<device>-<port>}; a task
 * of that thread that fails is counted ({@code loop_failures} in the agent's counters) and logged,
 * at most one line per 10 s, since a fault may repeat for every MAD.
 */
public final class CmPortAgent {
    private static final Map<Port, CmPortAgent> AGENTS = new IdentityHashMap<>();

    final Port port;
    final CmAgent agent;
    final ThreadControlLoop loop;
    /** CM MADs that did not decode (counted and dropped). */
    final LongAdder malformed = new LongAdder();
    /** Failures of the agent's control tasks: every one counted, one per 10 s logged. */
    final RateLimitedFailures failures = new RateLimitedFailures(FailureHandler.JAVA_LOGGING, Clock.SYSTEM, 10,
            TimeUnit.SECONDS);
    private final CmTransport transport;
    private int users;

    private CmPortAgent(Port port, CmTransport transport, String name) {
        this.port = port;
        this.transport = transport;
        this.loop = ThreadControlLoop.onVirtualThread("ipoib-cm-" + name, failures); // one per port
        CmEndpoint self = new CmEndpoint(port.attributes().lid().value(), port.gid(0), port.device().nodeGuid().value());
        this.agent = new CmAgent(loop, this::send, self, CmTimeouts.LINUX_IPOIB, new SplittableRandom().nextInt());
        transport.setReceiver(this::receive);
    }

    /**
     * The agent of the port, made on first use.
     *
     * @throws ipoib.api.verbs.VerbsException when the provider offers no CM MADs (the message says why)
     */
    public static synchronized CmPortAgent acquire(Port port) {
        CmPortAgent a = AGENTS.get(port);
        if (a == null) {
            a = new CmPortAgent(port, port.cmTransport(), port.device().name() + "-" + port.number());
            AGENTS.put(port, a);
        }
        a.users++;
        return a;
    }

    /** One user less; the last closes the agent and frees the port's CM class. */
    public void release() {
        synchronized (CmPortAgent.class) {
            if (--users > 0) {
                return;
            }
            AGENTS.remove(port, this);
        }
        try {
            transport.setReceiver(null);
        } catch (RuntimeException gone) {
            // The provider is gone with its port.
        }
        agent.close();
        loop.execute(loop::close);
    }

    private void send(CmEndpoint to, CmMad mad) {
        ByteBuffer buffer = ByteBuffer.allocate(CmTransport.MAD_LENGTH);
        mad.encode(MemorySegment.ofBuffer(buffer), 0);
        transport.send(to.lid(), buffer);
    }

    private void receive(int sourceLid, ByteBuffer mad) {
        byte[] copy = new byte[mad.remaining()];
        mad.duplicate().get(copy);
        CmMad decoded;
        try {
            decoded = CmMad.decode(MemorySegment.ofArray(copy), 0);
        } catch (DecodeException | RuntimeException e) {
            malformed.increment();
            return;
        }
        // The GID is not in a subnet-local MAD's headers; the REQ carries the peer's in its path.
        agent.receive(new CmEndpoint(sourceLid, Gid.ZERO, 0), decoded);
    }
}
