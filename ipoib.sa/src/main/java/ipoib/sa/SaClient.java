package ipoib.sa;

import ipoib.api.Gid;
import ipoib.api.IbMtu;
import ipoib.api.JoinState;
import ipoib.api.McMemberRecord;
import ipoib.api.Mgid;
import ipoib.api.PKey;
import ipoib.api.PathRecord;
import ipoib.api.metrics.HistogramSample;
import ipoib.api.sa.GroupTrap;
import ipoib.api.sa.MadTransport;
import ipoib.api.sa.SaException;
import ipoib.api.sa.SaStatus;
import ipoib.api.sa.SubnetAdministrator;
import ipoib.codec.DecodeException;
import ipoib.codec.mad.InformInfo;
import ipoib.codec.mad.MadMethod;
import ipoib.codec.mad.Notice;
import ipoib.codec.mad.SaAttribute;
import ipoib.codec.mad.SaHeader;
import ipoib.codec.mad.SaMad;
import ipoib.codec.mad.SaMcMemberRecord;
import ipoib.codec.mad.SaPathRecord;
import ipoib.codec.mad.Selector;
import ipoib.runtime.Cancellable;
import ipoib.runtime.ControlLoop;
import ipoib.runtime.DurationHistogram;
import ipoib.runtime.RateLimitedFailures;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Consumer;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * A subnet administrator client over a {@link MadTransport}.
 *
 * <p>Requests are matched to answers by the low 32 bits of the transaction ID (simulated SAs
 * rewrite the upper half); an unanswered request is sent again with the same TID after
 * {@code timeoutMillis}, up to {@code attempts} times (IBA 13.4.6.4), then fails with
 * {@link SaException#isTimeout()}. Answers shorter than a MAD are read as if zero-padded. Its
 * timers (retransmission, timeout, RMPP stall) run on the {@link ControlLoop} it is given, on that
 * loop's clock: a manual loop moves them in tests; answers and Reports are handled on the
 * transport's receiving thread.
 *
 * <p>Answers sent with RMPP (IBA 13.6; every GetTableResp of OpenSM through a kernel MAD layer,
 * and of the loopback SA) are put together by an {@link RmppReception}, one transfer per request: the client
 * acknowledges the SA's windows itself (the hardware transport registers its agent without kernel
 * RMPP, so the kernel hands it each segment, ib_mad.c "user rmpp is in effect"). While segments
 * arrive the request is not sent again; a transfer that stalls for {@link #RMPP_STALL_MILLIS} is
 * aborted (ABORT 118) and fails. The ACK of a completed transfer is sent again when the SA repeats
 * a segment (its copy of our ACK was lost). An answer with RMPP Active but RMPPVersion 0 is
 * OpenSM's whole table written as one message that no MAD layer segmented (OpenSM under
 * umad2sim/ibsim, which carry 256 octets, without the RMPP shim of the OpenSM test): its first
 * MAD is all that arrives. Its complete
 * records are returned; when a further record had begun the table is counted as cut
 * ({@code tables_cut}) and logged, never passed off as whole in silence.
 *
 * <p>Requests, retransmission, answer matching, RMPP answers, Reports and subscriptions share one
 * TID space and one pending table; the record codecs it uses live in ipoib.codec.mad, the RMPP
 * protocol in {@link RmppReception} and {@link RmppReassembler}.
 */
public final class SaClient implements SubnetAdministrator, AutoCloseable {
    private static final Logger LOG = Logger.getLogger(SaClient.class.getName());
    /**
     * Segments of an RMPP answer acknowledged at once: Linux's window for its default MAD receive
     * queue of 512 (mad_rmpp.c window_size: max_active >> 3).
     */
    public static final int RMPP_WINDOW = 64;
    /**
     * How long an RMPP transfer may go without a new segment before the client aborts it (ABORT
     * 118): Linux's receive timeout (mad_rmpp.c start_rmpp, "40 seconds until we can find the
     * packet lifetimes").
     */
    public static final long RMPP_STALL_MILLIS = 40_000;
    /** The largest RMPP answer taken (a STOP refuses a larger one): 16384 MCMemberRecords. */
    static final int RMPP_MAX_PAYLOAD = 16384 * 64;
    /** Reports go to the GSI: the client receives them through its transport. */
    private static final int REPORT_QPN = 1;

    private final MadTransport transport;
    private final ControlLoop loop;
    /** A timer task of this client that threw: counted ({@code task_failures}), logged rate-limited. */
    private final RateLimitedFailures taskFailures;
    private final long timeoutMillis;
    private final int attempts;
    private final long smKey;
    private final int tidHigh;
    private final AtomicInteger nextTid = new AtomicInteger(1);
    private final Map<Integer, Request> pending = new ConcurrentHashMap<>();
    private final List<Subscription> subscriptions = new CopyOnWriteArrayList<>();
    private final LongAdder sent = new LongAdder();
    private final LongAdder retransmitted = new LongAdder();
    private final LongAdder timedOut = new LongAdder();
    private final LongAdder unmatched = new LongAdder();
    private final LongAdder malformed = new LongAdder();
    private final LongAdder localFailures = new LongAdder();
    private final LongAdder reports = new LongAdder();
    private final LongAdder duplicateReports = new LongAdder();
    private final RmppReception rmpp;
    /** From a request's first send to its answer (retransmissions included: what the caller waits). */
    private final DurationHistogram roundTrips;
    /** TIDs of the last reports handed on, to drop the SA's retransmissions of them. */
    private final RecentIds recentReports = new RecentIds(256);
    /** The last trap handed on since the subscriptions last changed, to drop its repeat (guarded by itself). */
    private final GroupTrap[] lastTrap = new GroupTrap[1];
    private volatile boolean closed;

    /**
     * @param transport where MADs go and come from; the client becomes its receiver
     * @param loop runs retransmissions and timeouts on its clock; the owner closes it after the client
     * @param timeoutMillis wait per attempt, 1..60000
     * @param attempts sends per request, 1..20
     * @param smKey the SM_Key of requests: 0 as Linux sends it (untrusted: OpenSM answers a
     *              member table with one record per group, PortGID and JoinState zero), or the
     *              SM's key for a trusted client that sees every member; OpenSM drops requests
     *              with any other key without an answer
     */
    public SaClient(MadTransport transport, ControlLoop loop, long timeoutMillis, int attempts, long smKey) {
        this(transport, loop, timeoutMillis, attempts, smKey, RMPP_WINDOW);
    }

    /**
     * A client whose RMPP receive window is {@code rmppWindow} segments (1..1024) instead of
     * {@link #RMPP_WINDOW}.
     */
    public SaClient(MadTransport transport, ControlLoop loop, long timeoutMillis, int attempts, long smKey,
                    int rmppWindow) {
        if (rmppWindow < 1 || rmppWindow > 1024) {
            throw new IllegalArgumentException("invalid RMPP window " + rmppWindow + ": allowed 1..1024 segments");
        }
        this.rmpp = new RmppReception(mad -> sendQuietly(mad, "RMPP ACK/STOP/ABORT"), rmppWindow, RMPP_MAX_PAYLOAD);
        this.transport = Objects.requireNonNull(transport, "transport");
        this.loop = Objects.requireNonNull(loop, "control loop");
        this.roundTrips = new DurationHistogram(loop.clock(), DurationHistogram.SA_EXCHANGE_SECONDS);
        this.taskFailures = new RateLimitedFailures((message, failure) -> LOG.log(Level.WARNING, message, failure),
                loop.clock(), 10, TimeUnit.SECONDS);
        if (timeoutMillis < 1 || timeoutMillis > 60_000) {
            throw new IllegalArgumentException("invalid SA timeout " + timeoutMillis + " ms: allowed 1..60000");
        }
        if (attempts < 1 || attempts > 20) {
            throw new IllegalArgumentException("invalid SA attempts " + attempts + ": allowed 1..20");
        }
        this.timeoutMillis = timeoutMillis;
        this.attempts = attempts;
        this.smKey = smKey;
        this.tidHigh = (int) (loop.clock().nanoTime() ^ System.identityHashCode(this));
        transport.setReceiver(this::receive);
    }

    /** One request in flight. */
    private final class Request {
        final String description;
        final int tid;
        final byte[] mad;
        final CompletableFuture<Answer> future = new CompletableFuture<>();
        final long started = roundTrips.start();
        int sends;
        Cancellable timer;

        Request(String description, int tid, byte[] mad) {
            this.description = description;
            this.tid = tid;
            this.mad = mad;
        }
    }

    /**
     * An answer: its headers and its data (a 256-octet copy of one MAD, or the 56 header octets
     * and the whole payload of an RMPP transfer); {@code unsegmented} when it is the first MAD of
     * a longer message sent without segmentation (RMPP Active, RMPPVersion 0).
     */
    private record Answer(SaMad mad, MemorySegment data, boolean unsegmented) {}

    private record Subscription(GroupTrap.Type type, Mgid mgid, Consumer<GroupTrap> listener) {}

    // ---- SubnetAdministrator --------------------------------------------------------------------------

    @Override
    public CompletionStage<PathRecord> pathRecord(Gid source, Gid destination, PKey pkey) {
        return one("PathRecord Get " + source + " -> " + destination, MadMethod.GET, SaAttribute.PATH_RECORD,
                SaPathRecord.QUERY_COMPONENTS, SaPathRecord.query(source, destination, pkey.value()))
                .thenApply(r -> decode(r::toApi));
    }

    /**
     * PathRecord Get with an MTU selector (IBA 15.2.5.16): a path whose MTU is greater than, less
     * than or exactly {@code mtu}, or the largest available.
     */
    public CompletionStage<PathRecord> pathRecord(Gid source, Gid destination, PKey pkey, Selector mtuSelector,
                                                  IbMtu mtu) {
        SaPathRecord q = SaPathRecord.query(source, destination, pkey.value());
        SaPathRecord query = new SaPathRecord(q.serviceId(), q.destinationGid(), q.sourceGid(), 0, 0, false, 0, 0, 0,
                q.reversible(), q.numberOfPaths(), q.pkey(), 0, 0, mtuSelector, mtu.code(), Selector.GREATER_THAN, 0,
                Selector.GREATER_THAN, 0, 0);
        return one("PathRecord Get " + source + " -> " + destination + " MTU " + mtuSelector + " " + mtu,
                MadMethod.GET, SaAttribute.PATH_RECORD,
                SaPathRecord.QUERY_COMPONENTS | SaPathRecord.CM_MTU_SELECTOR | SaPathRecord.CM_MTU, query)
                .thenApply(r -> decode(r::toApi));
    }

    /**
     * PathRecord Get or GetTable with the components of {@code mask} taken from {@code query}
     * ({@link SaPathRecord}'s CM_* bits: selectors, NumbPath, Reversible, ServiceID, ...), the
     * records as the SA wrote them; a table longer than one MAD comes with RMPP, as member tables do.
     */
    public CompletionStage<List<SaPathRecord>> pathRecords(boolean table, SaPathRecord query, long mask) {
        return records(SaAttribute.PATH_RECORD, table, query, mask);
    }

    /**
     * Get ({@code table} false) or GetTable of any SA attribute, with the components of
     * {@code mask} taken from {@code query}: the records as the SA wrote them (a Get's one record,
     * a table's records up to the first all-zero one). A table longer than one MAD comes with RMPP.
     */
    public <R> CompletionStage<List<R>> records(SaAttribute<R> attribute, boolean table, R query, long mask) {
        String description = String.format("%s %s (components 0x%x)", attribute.name(),
                table ? "GetTable" : "Get", mask);
        int method = table ? MadMethod.GET_TABLE : MadMethod.GET;
        return request(description, method, attribute, mask, encoder(attribute, query))
                .thenApply(a -> decode(() -> table ? records(a, description, attribute)
                        : List.of(attribute.decode(a.data, SaMad.DATA_OFFSET))));
    }

    @Override
    public CompletionStage<McMemberRecord> join(Mgid mgid, Gid portGid, JoinState state) {
        return one("MCMemberRecord join " + mgid + " as " + state, MadMethod.SET, SaAttribute.MC_MEMBER_RECORD,
                SaMcMemberRecord.JOIN_COMPONENTS, SaMcMemberRecord.join(mgid, portGid, state))
                .thenApply(r -> decode(r::toApi));
    }

    @Override
    public CompletionStage<McMemberRecord> create(McMemberRecord template) {
        return one("MCMemberRecord create " + template.mgid(), MadMethod.SET, SaAttribute.MC_MEMBER_RECORD,
                SaMcMemberRecord.CREATE_COMPONENTS, SaMcMemberRecord.fromApi(template))
                .thenApply(r -> decode(r::toApi));
    }

    @Override
    public CompletionStage<Void> leave(Mgid mgid, Gid portGid, JoinState state) {
        SaMcMemberRecord record = SaMcMemberRecord.join(mgid, portGid, state);
        return request("MCMemberRecord leave " + mgid + " as " + state, MadMethod.DELETE,
                SaAttribute.MC_MEMBER_RECORD, SaMcMemberRecord.JOIN_COMPONENTS,
                encoder(SaAttribute.MC_MEMBER_RECORD, record))
                .thenApply(a -> null);
    }

    @Override
    public CompletionStage<Optional<McMemberRecord>> group(Mgid mgid) {
        SaMcMemberRecord record = SaMcMemberRecord.join(mgid, Gid.ZERO, JoinState.FULL_MEMBER);
        return table("MCMemberRecord GetTable " + mgid, SaMcMemberRecord.CM_MGID, record)
                .handle((records, failure) -> {
                    if (failure == null) {
                        return records.isEmpty() ? Optional.<McMemberRecord>empty() : Optional.of(records.get(0));
                    }
                    Throwable cause = failure instanceof java.util.concurrent.CompletionException c ? c.getCause() : failure;
                    if (cause instanceof SaException sa && sa.status() == SaStatus.NO_RECORDS) {
                        return Optional.<McMemberRecord>empty();
                    }
                    throw new java.util.concurrent.CompletionException(cause);
                });
    }

    @Override
    public CompletionStage<List<McMemberRecord>> groups() {
        SaMcMemberRecord record = SaMcMemberRecord.join(Mgid.of(0xFF00_0000_0000_0000L, 0), Gid.ZERO,
                JoinState.FULL_MEMBER);
        return table("MCMemberRecord GetTable", 0, record);
    }

    /**
     * MCMemberRecord GetTable with the components of {@code mask} taken from {@code query}
     * ({@link SaMcMemberRecord}'s CM_* bits): a filtered member table, e.g. by MLID, P_Key or
     * JoinState.
     */
    public CompletionStage<List<McMemberRecord>> memberTable(McMemberRecord query, long mask) {
        return table(String.format("MCMemberRecord GetTable (components 0x%x)", mask), mask,
                SaMcMemberRecord.fromApi(query));
    }

    private CompletionStage<List<McMemberRecord>> table(String description, long mask, SaMcMemberRecord query) {
        return request(description, MadMethod.GET_TABLE, SaAttribute.MC_MEMBER_RECORD, mask,
                encoder(SaAttribute.MC_MEMBER_RECORD, query))
                .thenApply(a -> decode(() -> {
                    List<McMemberRecord> out = new ArrayList<>();
                    for (SaMcMemberRecord r : records(a, description, SaAttribute.MC_MEMBER_RECORD)) {
                        out.add(r.toApi());
                    }
                    return out;
                }));
    }

    /** A request of one record of the attribute, answered with one. */
    private <R> CompletionStage<R> one(String description, int method, SaAttribute<R> attribute, long mask, R query) {
        return request(description, method, attribute, mask, encoder(attribute, query))
                .thenApply(a -> decode(() -> attribute.decode(a.data, SaMad.DATA_OFFSET)));
    }

    private static <R> Consumer2 encoder(SaAttribute<R> attribute, R record) {
        return (segment, offset) -> attribute.encode(record, segment, offset);
    }

    /**
     * The records of a GetTable answer, AttributeOffset apart, up to the first all-zero one (the
     * padding after the last); an unsegmented answer of which only the first MAD arrived is counted
     * as cut ({@code tables_cut}) and logged.
     */
    private <R> List<R> records(Answer a, String description, SaAttribute<R> attribute) throws DecodeException {
        int length = attribute.length();
        int stride = a.mad.sa().attributeOffset() * 8;
        List<R> out = new ArrayList<>();
        if (stride < length) {
            return out;
        }
        long end = a.data.byteSize();
        int at = SaMad.DATA_OFFSET;
        for (; at + length <= end && !isZero(a.data, at, at + length); at += stride) {
            out.add(attribute.decode(a.data, at));
        }
        if (a.unsegmented && at < end && !isZero(a.data, at, end)) {
            // A record had begun past the MAD's end: the table went on beyond what arrived.
            rmpp.tableCut();
            LOG.warning(() -> description + ": the SA sent the table as one unsegmented RMPP message "
                    + "(RMPPVersion 0) and only its first MAD arrived: " + out.size()
                    + " records, the rest is cut (OpenSM under umad2sim/ibsim; a kernel MAD layer would "
                    + "segment it)");
        }
        return out;
    }
    private static boolean isZero(MemorySegment data, long from, long to) {
        for (long i = from; i < to; i++) {
            if (data.get(java.lang.foreign.ValueLayout.JAVA_BYTE, i) != 0) {
                return false;
            }
        }
        return true;
    }

    @Override
    public CompletionStage<AutoCloseable> subscribe(GroupTrap.Type type, Mgid mgid, Consumer<GroupTrap> listener) {
        Objects.requireNonNull(type, "trap type");
        Objects.requireNonNull(listener, "listener");
        // OpenSM refuses an MGID in InformInfo (it reads it as a port GID): subscribe to every
        // group and filter here.
        InformInfo info = InformInfo.forGroupTrap(type, null, true, REPORT_QPN);
        Subscription subscription = new Subscription(type, mgid, listener);
        return request("InformInfo subscribe trap " + type.trapNumber() + (mgid == null ? " (all groups)" : " " + mgid),
                MadMethod.SET, SaAttribute.INFORM_INFO, 0, info::encode)
                .thenApply(a -> {
                    subscriptions.add(subscription);
                    forgetLastTrap();
                    return (AutoCloseable) () -> unsubscribe(subscription);
                });
    }

    /** Subscriptions changed: what was reported before is no reference for what comes next. */
    private void forgetLastTrap() {
        synchronized (lastTrap) {
            lastTrap[0] = null;
        }
    }

    private void unsubscribe(Subscription subscription) {
        forgetLastTrap();
        if (subscriptions.remove(subscription) && !closed) {
            if (subscriptions.stream().anyMatch(s -> s.type() == subscription.type())) {
                return;
            }
            InformInfo info = InformInfo.forGroupTrap(subscription.type(), null, false, REPORT_QPN);
            request("InformInfo unsubscribe trap " + subscription.type().trapNumber(), MadMethod.SET,
                    SaAttribute.INFORM_INFO, 0, info::encode);
        }
    }

    @Override
    public CompletionStage<ipoib.api.sa.SaCapabilities> capabilities() {
        return request("ClassPortInfo Get", MadMethod.GET, SaAttribute.CLASS_PORT_INFO, 0, (seg, off) -> { })
                .thenApply(a -> decode(() -> SaAttribute.CLASS_PORT_INFO.decode(a.data, SaMad.DATA_OFFSET).toApi()));
    }

    /**
     * A view of this client whose requests carry another SM_Key (0: untrusted, as Linux sends;
     * the SM's key: trusted, every member shown). It shares the transport, the pending requests
     * and the subscriptions of this client.
     */
    public SubnetAdministrator withSmKey(long key) {
        return new KeyedView(key);
    }

    /** The SM_Key of the request being built: the view's while a view builds it, else the client's. */
    private static final ScopedValue<Long> VIEW_KEY = ScopedValue.newInstance();

    private final class KeyedView implements SubnetAdministrator {
        private final long key;

        KeyedView(long key) {
            this.key = key;
        }

        private <T> T with(java.util.function.Supplier<T> call) {
            return ScopedValue.where(VIEW_KEY, key).call(call::get);
        }

        @Override
        public CompletionStage<PathRecord> pathRecord(Gid source, Gid destination, PKey pkey) {
            return with(() -> SaClient.this.pathRecord(source, destination, pkey));
        }

        @Override
        public CompletionStage<McMemberRecord> join(Mgid mgid, Gid portGid, JoinState state) {
            return with(() -> SaClient.this.join(mgid, portGid, state));
        }

        @Override
        public CompletionStage<McMemberRecord> create(McMemberRecord template) {
            return with(() -> SaClient.this.create(template));
        }

        @Override
        public CompletionStage<Void> leave(Mgid mgid, Gid portGid, JoinState state) {
            return with(() -> SaClient.this.leave(mgid, portGid, state));
        }

        @Override
        public CompletionStage<Optional<McMemberRecord>> group(Mgid mgid) {
            return with(() -> SaClient.this.group(mgid));
        }

        @Override
        public CompletionStage<List<McMemberRecord>> groups() {
            return with(SaClient.this::groups);
        }

        @Override
        public CompletionStage<AutoCloseable> subscribe(GroupTrap.Type type, Mgid mgid, Consumer<GroupTrap> listener) {
            return with(() -> SaClient.this.subscribe(type, mgid, listener));
        }

        @Override
        public CompletionStage<ipoib.api.sa.SaCapabilities> capabilities() {
            return with(SaClient.this::capabilities);
        }

        @Override
        public Map<String, Long> statistics() {
            return SaClient.this.statistics(); // one client, one set of counters
        }

        @Override
        public HistogramSample roundTrips() {
            return SaClient.this.roundTrips();
        }
    }

    /** Counters of this client; {@code pending} and {@code subscriptions} are the current numbers. */
    @Override
    public Map<String, Long> statistics() {
        Map<String, Long> out = new java.util.HashMap<>(Map.of("sent", sent.sum(), "retransmitted", retransmitted.sum(),
                "timed_out", timedOut.sum(), "unmatched_answers", unmatched.sum(), "malformed_answers", malformed.sum(),
                "not_sent", localFailures.sum(), "reports", reports.sum(), "duplicate_reports", duplicateReports.sum(),
                "pending", (long) pending.size(), "subscriptions", (long) subscriptions.size()));
        out.put("task_failures", taskFailures.count());
        out.putAll(rmpp.statistics());
        return Map.copyOf(out);
    }

    /** Seconds from each answered request's first send to its answer (any status). */
    @Override
    public HistogramSample roundTrips() {
        return roundTrips.snapshot();
    }

    // ---- requests --------------------------------------------------------------------------------------

    /** Writes an attribute at an offset of the MAD. */
    @FunctionalInterface
    private interface Consumer2 {
        void encode(MemorySegment segment, long offset);
    }

    @FunctionalInterface
    private interface Decoder<T> {
        T decode() throws DecodeException;
    }

    private <T> T decode(Decoder<T> decoder) {
        try {
            return decoder.decode();
        } catch (DecodeException e) {
            malformed.increment();
            throw new java.util.concurrent.CompletionException(new SaException("malformed answer: " + e.getMessage(),
                    SaStatus.INVALID_ATTRIBUTE_VALUE));
        }
    }

    private CompletableFuture<Answer> request(String description, int method, SaAttribute<?> attributeType,
                                              long componentMask, Consumer2 attribute) {
        if (closed) {
            return CompletableFuture.failedFuture(new SaException(description + " (client closed)", SaStatus.BUSY));
        }
        int tid = nextTid.getAndIncrement();
        long fullTid = (long) tidHigh << 32 | (tid & 0xFFFF_FFFFL);
        byte[] bytes = new byte[SaMad.LENGTH];
        MemorySegment mad = MemorySegment.ofArray(bytes);
        SaMad header = SaMad.request(method, fullTid, attributeType.id(), 0, componentMask);
        header = header.withSa(new SaHeader(VIEW_KEY.orElse(smKey), 0, componentMask));
        header.encode(mad, 0);
        attribute.encode(mad, SaMad.DATA_OFFSET);
        Request request = new Request(description, tid, bytes);
        pending.put(tid, request);
        send(request);
        return request.future;
    }

    private void send(Request request) {
        synchronized (request) {
            if (request.future.isDone()) {
                return;
            }
            request.sends++;
            if (request.sends > 1) {
                retransmitted.increment();
            }
            if (!schedule(request, () -> onTimeout(request), timeoutMillis)) {
                // The owner is stopping the client's loop: no retransmission, no answer to wait for.
                localFailures.increment();
                fail(request, SaException.notSent(request.description, "the SA client is stopping"));
                return;
            }
        }
        sent.increment();
        try {
            transport.send(ByteBuffer.wrap(request.mad));
        } catch (RuntimeException e) {
            // The SA never saw it: a local failure (port down, transport closed), not an SA status.
            localFailures.increment();
            fail(request, SaException.notSent(request.description, String.valueOf(e.getMessage())));
        }
    }

    /**
     * Sets the request's timer (the caller holds the request's lock); false when the loop is
     * closed, where a timer would never fire.
     */
    private boolean schedule(Request request, Runnable task, long millis) {
        if (loop.isClosed()) {
            request.timer = null;
            return false;
        }
        request.timer = loop.schedule(() -> {
            try {
                task.run();
            } catch (RuntimeException e) {
                taskFailures.failed("SA client timer of " + request.description + " failed", e);
            }
        }, millis, TimeUnit.MILLISECONDS);
        return true;
    }

    private void onTimeout(Request request) {
        if (request.future.isDone()) {
            return;
        }
        if (rmpp.inProgress(request.tid)) {
            return; // segments arrive: the transfer's stall timer runs instead
        }
        if (request.sends < attempts && !closed) {
            send(request);
        } else {
            timedOut.increment();
            fail(request, SaException.timeout(request.description, request.sends, timeoutMillis));
        }
    }

    private void fail(Request request, SaException failure) {
        pending.remove(request.tid, request);
        rmpp.forget(request.tid);
        cancelTimer(request);
        request.future.completeExceptionally(failure);
    }

    private static void cancelTimer(Request request) {
        synchronized (request) {
            if (request.timer != null) {
                request.timer.cancel();
            }
        }
    }

    // ---- answers and reports ------------------------------------------------------------------------------

    private void receive(ByteBuffer buffer) {
        byte[] bytes = new byte[SaMad.LENGTH];
        int n = Math.min(buffer.remaining(), SaMad.LENGTH);
        buffer.duplicate().get(bytes, 0, n);
        MemorySegment data = MemorySegment.ofArray(bytes);
        SaMad mad;
        try {
            mad = SaMad.decode(data, 0);
        } catch (DecodeException e) {
            malformed.increment();
            return;
        }
        int method = mad.header().method();
        if (method == MadMethod.REPORT) {
            onReport(mad, data);
            return;
        }
        if (!MadMethod.isResponse(method)) {
            unmatched.increment();
            return;
        }
        if (RmppReception.isSegmented(mad)) {
            onRmpp(mad, data);
            return;
        }
        boolean unsegmented = RmppReception.isUnsegmented(mad); // OpenSM on ibsim: see the class comment
        Request request = pending.remove((int) mad.header().transactionId());
        if (request == null) {
            unmatched.increment();
            return;
        }
        cancelTimer(request);
        roundTrips.observeSince(request.started);
        int status = mad.header().status();
        if (status != SaStatus.SUCCESS) {
            request.future.completeExceptionally(new SaException(request.description, status));
        } else {
            request.future.complete(new Answer(mad, data, unsegmented));
        }
    }

    /** A MAD of an RMPP transfer: a segment of an answer, or the SA's ABORT or STOP. */
    private void onRmpp(SaMad mad, MemorySegment data) {
        int tid = (int) mad.header().transactionId();
        Request request = pending.get(tid);
        RmppReception.Outcome outcome = rmpp.accept(tid, request != null && !request.future.isDone(), mad, data);
        switch (outcome) {
            case RmppReception.NotPending n -> {
                if (!n.answered()) {
                    unmatched.increment();
                }
            }
            case RmppReception.Continuing c -> {
                // Progress or not, the transfer is alive: its stall timer starts again.
                boolean timed;
                synchronized (request) {
                    if (request.timer != null) {
                        request.timer.cancel();
                    }
                    timed = schedule(request, () -> onStall(request), RMPP_STALL_MILLIS);
                }
                if (!timed) {
                    fail(request, new SaException(request.description + " (the SA client is stopping)",
                            SaStatus.BUSY));
                }
            }
            case RmppReception.Complete c -> {
                pending.remove(tid, request);
                cancelTimer(request);
                roundTrips.observeSince(request.started);
                SaMad header;
                try {
                    header = SaMad.decode(c.answer(), 0);
                } catch (DecodeException e) {
                    malformed.increment();
                    fail(request, new SaException(request.description + " (malformed RMPP answer: " + e.getMessage()
                            + ")", SaStatus.INVALID_ATTRIBUTE_VALUE));
                    return;
                }
                int status = header.header().status();
                if (status != SaStatus.SUCCESS) {
                    request.future.completeExceptionally(new SaException(request.description, status));
                } else {
                    request.future.complete(new Answer(header, c.answer(), false));
                }
            }
            case RmppReception.Failed f -> {
                LOG.info(() -> request.description + ": RMPP transfer ended without the answer: " + f.reason());
                fail(request, new SaException(request.description + " (RMPP: " + f.reason() + ")",
                        SaStatus.NO_RESOURCES));
            }
        }
    }

    /** No segment for {@link #RMPP_STALL_MILLIS}: the client aborts the transfer (status 118) and fails. */
    private void onStall(Request request) {
        if (request.future.isDone()) {
            return;
        }
        String what = rmpp.abortStalled(request.tid);
        if (what != null) {
            timedOut.increment();
            fail(request, SaException.timeout(request.description + " (" + what + ")", request.sends,
                    RMPP_STALL_MILLIS));
        }
    }

    private void sendQuietly(byte[] mad, String what) {
        try {
            transport.send(ByteBuffer.wrap(mad));
        } catch (RuntimeException e) {
            LOG.log(Level.FINE, what + " not sent", e);
        }
    }

    private void onReport(SaMad report, MemorySegment data) {
        reports.increment();
        // Acknowledge first: the SA retransmits unacknowledged reports (IBA 13.4.9.2).
        byte[] ack = new byte[SaMad.LENGTH];
        MemorySegment ackMad = MemorySegment.ofArray(ack);
        report.response(SaStatus.SUCCESS).encode(ackMad, 0);
        MemorySegment.copy(data, SaMad.DATA_OFFSET, ackMad, SaMad.DATA_OFFSET, Notice.LENGTH);
        try {
            transport.send(ByteBuffer.wrap(ack));
        } catch (RuntimeException e) {
            LOG.log(Level.FINE, "ReportResp not sent", e);
        }
        // A report the SA sent again (our acknowledgement came late) has the same TID: acknowledged
        // again above, handed on once.
        if (!recentReports.add(report.header().transactionId())) {
            duplicateReports.increment();
            return;
        }
        GroupTrap trap;
        try {
            trap = Notice.decode(data, SaMad.DATA_OFFSET).toGroupTrap();
        } catch (DecodeException e) {
            malformed.increment();
            return;
        }
        // The same trap right again with a new TID: OpenSM reports a trap once per InformInfo it
        // holds for the subscriber (a subscription it registered twice, e.g. a retransmitted Set).
        // A group is not created (or deleted) twice in a row, and the multicast manager subscribes
        // both traps, so the repeat is no news. (A subscriber of one trap type only could see the
        // same group deleted twice in a row, its re-creation unseen; the second is dropped then.)
        synchronized (lastTrap) {
            if (trap.equals(lastTrap[0])) {
                duplicateReports.increment();
                return;
            }
            lastTrap[0] = trap;
        }
        for (Subscription s : subscriptions) {
            if (s.type() == trap.type() && (s.mgid() == null || s.mgid().equals(trap.mgid()))) {
                try {
                    s.listener().accept(trap);
                } catch (RuntimeException e) {
                    LOG.log(Level.WARNING, "group trap listener failed on " + trap, e);
                }
            }
        }
    }

    /** A bounded set of the most recent IDs (insertion order evicts the oldest). */
    private static final class RecentIds {
        private final java.util.LinkedHashSet<Long> ids = new java.util.LinkedHashSet<>();
        private final int limit;

        RecentIds(int limit) {
            this.limit = limit;
        }

        /** Adds an ID; false when it was already there. */
        synchronized boolean add(long id) {
            if (!ids.add(id)) {
                return false;
            }
            if (ids.size() > limit) {
                ids.remove(ids.iterator().next());
            }
            return true;
        }
    }

    /** Fails every pending request and stops receiving. */
    @Override
    public void close() {
        closed = true;
        transport.setReceiver(null);
        for (Request r : pending.values()) {
            fail(r, new SaException(r.description + " (client closed)", SaStatus.BUSY));
        }
        subscriptions.clear();
    }
}
