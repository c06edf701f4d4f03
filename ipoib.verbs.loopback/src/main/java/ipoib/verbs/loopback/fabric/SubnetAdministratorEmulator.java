package ipoib.verbs.loopback.fabric;

import ipoib.api.Gid;
import ipoib.api.Guid;
import ipoib.api.IbMtu;
import ipoib.api.JoinState;
import ipoib.api.Lid;
import ipoib.api.McMemberRecord;
import ipoib.api.Mgid;
import ipoib.api.PKey;
import ipoib.api.PathRecord;
import ipoib.api.QKey;
import ipoib.api.Rate;
import ipoib.api.sa.GroupTrap;
import ipoib.api.sa.SaCapabilities;
import ipoib.api.sa.SaStatus;
import ipoib.codec.DecodeException;
import ipoib.codec.mad.ClassPortInfo;
import ipoib.codec.mad.InformInfo;
import ipoib.codec.mad.MadMethod;
import ipoib.codec.mad.Notice;
import ipoib.codec.mad.SaAttribute;
import ipoib.codec.mad.SaHeader;
import ipoib.codec.mad.SaMad;
import ipoib.codec.mad.SaMcMemberRecord;
import ipoib.codec.mad.SaPathRecord;
import ipoib.codec.mad.Selector;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import ipoib.runtime.Clock;
import ipoib.runtime.ControlLoop;
import ipoib.runtime.FailureHandler;
import ipoib.runtime.RateLimitedFailures;
import ipoib.runtime.ThreadControlLoop;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The emulated subnet administrator at the MAD level: decodes the requests the SA client sends,
 * answers them from the {@link SubnetManager} with the status codes and fields OpenSM gives, and
 * reports group traps to subscribers as Notices. Runs on a control loop of its own
 * ({@code loopback-sa}), so a request never blocks the data path or the requester; the {@code
 * sa-delay} fault and the RMPP ACK timers are timers of that loop, on its clock (tests give a
 * manual loop). A task of the loop that fails is counted ({@code loop failures} in the
 * statistics) and logged, one line per 10 s.
 *
 * <p>One handler per attribute ({@link #handlers()}, as OpenSM has an osm_sa_*.c per attribute),
 * each dispatching on the method; the attributes' IDs, names, record lengths and table strides come
 * from {@link SaAttribute}. The MCMemberRecord rules themselves are in {@link McMemberRules}, the
 * PathRecord components in {@link PathRecordSelection}, faults in {@link SaFaults}, RMPP sends in
 * {@link RmppTransfers}.
 */
public final class SubnetAdministratorEmulator implements GroupTrapSink, AutoCloseable {
    private static final Logger LOG = Logger.getLogger(SubnetAdministratorEmulator.class.getName());
    /** OpenSM's components to create a group: join components plus Q_Key, TClass, P_Key, FlowLabel, SL. */
    static final long REQUIRED_CREATE_COMPONENTS = SaMcMemberRecord.JOIN_COMPONENTS | SaMcMemberRecord.CM_QKEY
            | SaMcMemberRecord.CM_TCLASS | SaMcMemberRecord.CM_PKEY | SaMcMemberRecord.CM_FLOW_LABEL
            | SaMcMemberRecord.CM_SL;
    /** The SM_Key of a trusted requester (OpenSM's default). */
    static final long TRUSTED_SM_KEY = 1;

    private final Fabric fabric;
    private final SubnetManager sm;
    private final ControlLoop loop;
    private final RateLimitedFailures loopFailures = new RateLimitedFailures(FailureHandler.JAVA_LOGGING, Clock.SYSTEM,
            10, TimeUnit.SECONDS);
    private final Map<LoopPort, LoopMadTransport> transports = new ConcurrentHashMap<>();
    private final Map<Integer, LongAdder> statusCounts = new ConcurrentHashMap<>();
    private final AtomicLong reportTid = new AtomicLong(0x5A00_0000_0000_0000L);
    private final SplittableRandom random;
    private final Gid smGid;
    private final LongAdder dropped = new LongAdder();
    private final LongAdder trapsSent = new LongAdder();
    private final LongAdder trapsLost = new LongAdder();
    private volatile SaFaults faults = SaFaults.NONE;
    /** SendOnlyFullMember support advertised and accepted (OpenSM 3.3.23's); off emulates an SM without it. */
    private volatile boolean sendOnlyFullMember = true;
    private final RmppTransfers rmpp;
    private final Map<Integer, AttributeHandler> handlers = handlers();

    public SubnetAdministratorEmulator(Fabric fabric) {
        this(fabric, null);
    }

    /**
     * @param loop where requests, answers, reports and the SA's timers run; null for a thread of
     *             its own. Closed with the SA.
     */
    SubnetAdministratorEmulator(Fabric fabric, ControlLoop loop) {
        this.fabric = fabric;
        this.sm = fabric.subnetManager();
        this.random = new SplittableRandom(fabric.config().seed() * 31 + 7);
        this.smGid = Gid.of(fabric.config().subnetPrefix(), Guid.of(fabric.config().nodeGuidBase() + 1));
        this.loop = loop != null ? loop : new ThreadControlLoop("loopback-sa", loopFailures);
        sm.setTrapSink(this);
        // A timer asked for while the SA closes is NONE: the transfer ends with the SA.
        this.rmpp = new RmppTransfers(this.loop::execute,
                (task, millis) -> this.loop.schedule(task, millis, TimeUnit.MILLISECONDS),
                (port, mad) -> transport(port).deliver(mad), this::loseRmppSegment);
    }

    /** The {@code sa-rmpp-loss} fault: whether this RMPP segment is lost. */
    private boolean loseRmppSegment() {
        int percent = faults.rmppLossPercent();
        if (percent == 0) {
            return false;
        }
        synchronized (random) {
            return random.nextInt(100) < percent;
        }
    }

    /** Waits until the SA's loop has run every task posted before (tests: a quiet point). */
    void sync() {
        loop.run(() -> { }, 30, TimeUnit.SECONDS);
    }

    /** Deterministic RMPP loss (tests of retransmission, lost ACKs and aborts). */
    void setRmppFaults(RmppFaults faults) {
        rmpp.setFaults(faults);
    }

    /** The transport of a port, created on first use. */
    public LoopMadTransport transport(LoopPort port) {
        return transports.computeIfAbsent(port, p -> new LoopMadTransport(p, this));
    }

    public void setFaults(SaFaults faults) {
        this.faults = faults;
    }

    public SaFaults faults() {
        return faults;
    }

    /**
     * Whether the SA advertises SendOnlyFullMember in ClassPortInfo (CapabilityMask2 bit 12) and
     * accepts JoinState 0x8, as OpenSM 3.3.23 does; off, it answers as an SM without the support:
     * the bit clear and such joins refused with ERR_REQ_INVALID.
     */
    public void setSendOnlyFullMember(boolean supported) {
        this.sendOnlyFullMember = supported;
    }

    public boolean sendOnlyFullMember() {
        return sendOnlyFullMember;
    }

    void submit(LoopPort from, byte[] mad) {
        SaFaults f = faults;
        if (f.any()) {
            boolean drop;
            synchronized (random) {
                drop = random.nextInt(100) < f.dropPercent();
            }
            if (drop) {
                dropped.increment();
                return;
            }
        }
        if (loop.isClosed()) {
            dropped.increment();
        } else if (f.delayMillis() > 0) {
            loop.schedule(() -> handle(from, mad), f.delayMillis(), TimeUnit.MILLISECONDS);
        } else {
            loop.execute(() -> handle(from, mad));
        }
    }

    private void handle(LoopPort from, byte[] bytes) {
        MemorySegment in = MemorySegment.ofArray(bytes);
        SaMad request;
        try {
            request = SaMad.decode(in, 0);
        } catch (DecodeException e) {
            // OpenSM drops MADs it cannot parse; so does the emulation.
            dropped.increment();
            return;
        }
        long key = request.sa().smKey();
        if (key != 0 && key != TRUSTED_SM_KEY) {
            // OpenSM 3.3.23 osm_sa_mad_ctrl.c:344-356 (ERR 1A04): a MAD with a non-zero SM_Key other
            // than the SM's is ignored, no answer.
            dropped.increment();
            LOG.info(() -> String.format("emulated SA ignored a MAD from %s: ERR 1A04 non-zero SM_Key 0x%x is not "
                    + "the SM's", from, key));
            return;
        }
        if (request.rmpp().active() && request.rmpp().type() != ipoib.codec.mad.RmppHeader.TYPE_DATA) {
            rmpp.onControl(from, request, in); // an ACK, STOP or ABORT of an answer being sent
            return;
        }
        int method = request.header().method();
        if (method == MadMethod.REPORT_RESP) {
            return;
        }
        if (MadMethod.isResponse(method)) {
            dropped.increment();
            return;
        }
        // Counted by kind before a fault may answer it: fabric:sa shows every request it answered.
        sm.count(kind(request));
        SaFaults f = faults;
        if (f.errorPercent() > 0) {
            boolean fail;
            synchronized (random) {
                fail = random.nextInt(100) < f.errorPercent();
            }
            if (fail) {
                answer(from, request, f.errorStatus(), null, 0);
                return;
            }
        }
        try {
            AttributeHandler handler = handlers.get(request.header().attributeId());
            if (handler == null) {
                answer(from, request, SaStatus.METHOD_ATTRIBUTE_NOT_SUPPORTED, null, 0);
            } else {
                handler.handle(from, request, in);
            }
        } catch (SaStatusException e) {
            // One line per refusal naming OpenSM's rule (ERR 1Bxx), as OpenSM's log does. A refused
            // Delete changes nothing the requester wanted kept: the port already holds none of the
            // states it leaves (typically the SM dropped its memberships when the port went down,
            // as on a port reset, and the consumers then leave each group): DEBUG, not INFO.
            Level level = request.header().method() == MadMethod.DELETE ? Level.FINE : Level.INFO;
            LOG.log(level, () -> "emulated SA refused " + kind(request) + " from " + from + ": " + e.getMessage());
            answer(from, request, e.status(), null, 0);
        } catch (DecodeException e) {
            answer(from, request, SaStatus.INVALID_ATTRIBUTE_VALUE, null, 0);
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "emulated SA failed on a request from " + from, e);
            answer(from, request, SaStatus.NO_RESOURCES, null, 0);
        }
    }

    /** The kind of a request for the statistics: attribute and method, {@code "MCMemberRecord Set"}. */
    private static String kind(SaMad request) {
        return SaAttribute.nameOf(request.header().attributeId()) + " " + MadMethod.name(request.header().method());
    }

    /** What the SA does with the requests of one attribute (OpenSM: one osm_sa_*.c per attribute). */
    @FunctionalInterface
    private interface AttributeHandler {
        void handle(LoopPort from, SaMad request, MemorySegment in) throws SaStatusException, DecodeException;
    }

    /** The attributes the SA answers, by attribute ID; any other is refused (METHOD_ATTRIBUTE_NOT_SUPPORTED). */
    private Map<Integer, AttributeHandler> handlers() {
        return Map.of(SaAttribute.PATH_RECORD.id(), this::pathRecord,
                SaAttribute.MC_MEMBER_RECORD.id(), this::mcMemberRecord,
                SaAttribute.INFORM_INFO.id(), this::informInfo,
                SaAttribute.CLASS_PORT_INFO.id(), (from, request, in) -> classPortInfo(from, request));
    }

    // ---- ClassPortInfo ---------------------------------------------------------------------------------

    /**
     * What OpenSM 3.3.23 answers (osm_sa_class_port_info.c:108-179): CapabilityMask with
     * Get/Set Notice (bit 1), PortInfo CapabilityMask match (13) and UD multicast (9);
     * CapabilityMask2 with OpenSM's fixed bits (162-169), SendOnlyFullMember (12) among them;
     * RespTimeValue 16 for the default transaction timeout of 200 ms (4.096 µs × 2^16 ≈ 268 ms).
     * Two deliberate differences, bits clients do not read (Linux reads CapabilityMask2 bit 12
     * only): OpenSM as Debian builds it (VENDOR_RMPP_SUPPORT and DUAL_SIDED_RMPP, lines 158-161)
     * sets IsMultiPathSupported (CapabilityMask bit 10), but the emulation answers no
     * MultiPathRecord; and OpenSM sets IsMulticastFDBTopSupported (CapabilityMask2 bit 3,
     * {@code use_mfttop}, on by default), which says the SM programs the switches'
     * MulticastFDBTop, and the loopback fabric has no switches. {@link #CAPABILITY_MASK_NOT_ADVERTISED},
     * {@link #CAPABILITY_MASK2_NOT_ADVERTISED}.
     */
    /** OpenSM's CapabilityMask bits the emulation deliberately leaves out: IsMultiPathSupported (10). */
    public static final int CAPABILITY_MASK_NOT_ADVERTISED = 1 << 10;
    /** OpenSM's default CapabilityMask2 bits the emulation deliberately leaves out: MulticastFDBTop (3). */
    public static final int CAPABILITY_MASK2_NOT_ADVERTISED = 1 << 3;
    static final ClassPortInfo CLASS_PORT_INFO = new ClassPortInfo(1, 2, 1 << 1 | 1 << 13 | 1 << 9,
            1 << 5 | 1 << 6 | 1 << 7 | 1 << 8 | 1 << 10 | 1 << 12 | 1 << 13 | 1 << 15, 16);

    private void classPortInfo(LoopPort from, SaMad request) throws SaStatusException {
        if (request.header().method() != MadMethod.GET) {
            throw new SaStatusException(SaStatus.METHOD_ATTRIBUTE_NOT_SUPPORTED, "ClassPortInfo method "
                    + request.header().method());
        }
        ClassPortInfo info = sendOnlyFullMember ? CLASS_PORT_INFO : new ClassPortInfo(CLASS_PORT_INFO.baseVersion(),
                CLASS_PORT_INFO.classVersion(), CLASS_PORT_INFO.capabilityMask(),
                CLASS_PORT_INFO.capabilityMask2() & ~SaCapabilities.SEND_ONLY_FULL_MEMBER,
                CLASS_PORT_INFO.responseTimeValue());
        answer(from, request, SaStatus.SUCCESS, info::encode, 0);
    }

    // ---- PathRecord ------------------------------------------------------------------------------------

    private void pathRecord(LoopPort from, SaMad request, MemorySegment in) throws SaStatusException, DecodeException {
        int method = request.header().method();
        if (method != MadMethod.GET && method != MadMethod.GET_TABLE) {
            throw new SaStatusException(SaStatus.METHOD_ATTRIBUTE_NOT_SUPPORTED, "ERR 1F17: PathRecord method " + method);
        }
        long mask = request.sa().componentMask();
        SaPathRecord query = SaPathRecord.decode(in, SaMad.DATA_OFFSET);
        PathRecordSelection.checkRequest(mask, query);
        if ((mask & SaPathRecord.CM_DGID) == 0 && (mask & SaPathRecord.CM_DLID) == 0) {
            throw new SaStatusException(SaStatus.INSUFFICIENT_COMPONENTS, "PathRecord needs a DGID or DLID");
        }
        if ((mask & SaPathRecord.CM_DGID) != 0 && query.destinationGid().isMulticast()) {
            multicastPath(from, request, mask, query);
            return;
        }
        PKey pkey = (mask & SaPathRecord.CM_PKEY) != 0 ? pkeyOf(query.pkey()) : PKey.DEFAULT;
        boolean table = method == MadMethod.GET_TABLE;
        List<SaPathRecord> paths;
        Gid source = null;
        Gid destination = null;
        try {
            source = (mask & SaPathRecord.CM_SGID) != 0 ? query.sourceGid()
                    : (mask & SaPathRecord.CM_SLID) != 0 ? gidOfLid(query.sourceLid(), "source") : from.gid(0);
            destination = (mask & SaPathRecord.CM_DGID) != 0 ? query.destinationGid()
                    : gidOfLid(query.destinationLid(), "dest");
            // osm_pr_rcv_process: a SGID and a SLID (a DGID and a DLID) of different ports are invalid.
            checkSamePort(mask, SaPathRecord.CM_SGID | SaPathRecord.CM_SLID, source, query.sourceLid(), "SGID", "SLID");
            checkSamePort(mask, SaPathRecord.CM_DGID | SaPathRecord.CM_DLID, destination, query.destinationLid(),
                    "DGID", "DLID");
            PathRecord base = sm.pathRecord(source, destination, pkey);
            paths = PathRecordSelection.select(mask, query, table, base,
                    lids(mask & SaPathRecord.CM_SLID, query.sourceLid(), base.sourceLid().value()),
                    lids(mask & SaPathRecord.CM_DLID, query.destinationLid(), base.destinationLid().value()));
        } catch (SaStatusException noPath) {
            if (!table || noPath.status() != SaStatus.NO_RECORDS) {
                throw noPath;
            }
            paths = List.of(); // osm_sa_respond: a GetTable without records is an empty table
        }
        if (paths.isEmpty() && !table) {
            throw new SaStatusException(SaStatus.NO_RECORDS, "no path from " + source + " to " + destination
                    + " meets the request's selectors, NumbPath and components (pr_rcv_get_path_parms)");
        }
        if (table) {
            answerTable(from, request, SaAttribute.PATH_RECORD.tableStride(), paths.stream().map(r -> (AttributeWriter) r::encode).toList());
        } else {
            answer(from, request, SaStatus.SUCCESS, paths.get(0)::encode, 0);
        }
    }

    /** The GID of the port with a LID (any of its 2^LMC LIDs), for a query naming an end by LID only. */
    private Gid gidOfLid(int lid, String end) throws SaStatusException {
        LoopPort port = sm.portByLid(lid);
        if (port == null) {
            throw new SaStatusException(SaStatus.NO_RECORDS, "No " + end + " port with LID " + lid
                    + " (osm_pr_get_end_points)");
        }
        return port.gid(0);
    }

    private void checkSamePort(long mask, long both, Gid gid, int lid, String gidName, String lidName)
            throws SaStatusException {
        if ((mask & both) != both) {
            return;
        }
        LoopPort byLid = sm.portByLid(lid);
        if (byLid == null) {
            throw new SaStatusException(SaStatus.NO_RECORDS, "No port with " + lidName + " " + lid
                    + " (osm_pr_get_end_points)");
        }
        if (!byLid.gid(0).equals(gid)) {
            throw new SaStatusException(SaStatus.REQUEST_INVALID, "Port for " + gidName + " " + gid
                    + " not same as port for " + lidName + " " + lid + " (osm_pr_rcv_process)");
        }
    }

    /** An end's LIDs: the one a SLID/DLID component names, else the port's 2^LMC LIDs from its base. */
    private PathRecordSelection.LidRange lids(long component, int asked, int base) {
        return component != 0 ? new PathRecordSelection.LidRange(asked, asked)
                : new PathRecordSelection.LidRange(base, base + sm.lidsPerPort() - 1);
    }

    /**
     * A PathRecord to a multicast DGID, answered from the group as OpenSM 3.3.23 does
     * (pr_process_multicast and pr_match_mgrp_attributes, osm_sa_path_record.c:1560-1740): the
     * request's DLID, SGID (a member), P_Key, SL, FlowLabel, HopLimit and TClass must match the
     * group (else ERR 1F19, no records); the answer is the request with the group's MGID, MLID,
     * TClass, P_Key, MTU, rate, packet lifetime, SL, FlowLabel and HopLimit, one path.
     */
    private void multicastPath(LoopPort from, SaMad request, long mask, SaPathRecord q) throws SaStatusException {
        MulticastGroup g = sm.group(new Mgid(q.destinationGid()));
        if (g == null) {
            throw new SaStatusException(SaStatus.NO_RECORDS, "ERR 1F09: no multicast group " + q.destinationGid());
        }
        String mismatch = (mask & SaPathRecord.CM_DLID) != 0 && q.destinationLid() != g.mlid ? "DLID is not the MLID"
                : (mask & SaPathRecord.CM_SGID) != 0 && g.joinState(q.sourceGid()) == 0 ? "SGID " + q.sourceGid()
                        + " is not a member"
                : (mask & SaPathRecord.CM_PKEY) != 0 && q.pkey() != g.pkey.value() ? String.format(
                        "P_Key 0x%04x is not the group's %s", q.pkey(), g.pkey)
                : (mask & SaPathRecord.CM_SL) != 0 && q.serviceLevel() != g.serviceLevel ? "SL differs"
                : (mask & SaPathRecord.CM_FLOW_LABEL) != 0 && q.flowLabel() != g.flowLabel ? "FlowLabel differs"
                : (mask & SaPathRecord.CM_HOP_LIMIT) != 0 && q.hopLimit() != g.hopLimit ? "HopLimit differs"
                : (mask & SaPathRecord.CM_TCLASS) != 0 && q.trafficClass() != g.trafficClass ? "TClass differs"
                : null;
        if (mismatch != null) {
            throw new SaStatusException(SaStatus.NO_RECORDS, "ERR 1F19: MC group attributes don't match PathRecord "
                    + "request: " + mismatch);
        }
        // Link-local groups keep their hop limit; others get the maximum (OpenSM line 1728).
        int hopLimit = g.mgid().scope() == Mgid.SCOPE_LINK_LOCAL ? g.hopLimit : 0xFF;
        // The NumbPath octet is set to 1 (line 1710), which clears Reversible; HopFlowRaw is
        // rewritten whole (1733), which clears RawTraffic.
        SaPathRecord answer = new SaPathRecord(q.serviceId(), g.mgid().gid(), q.sourceGid(), g.mlid, q.sourceLid(),
                false, g.flowLabel, hopLimit, g.trafficClass, false, 1, g.pkey.value(), 0,
                g.serviceLevel, Selector.EXACTLY, g.mtu.code(), Selector.EXACTLY, g.rate.code(), Selector.EXACTLY,
                g.packetLifetime, q.preference());
        answer(from, request, SaStatus.SUCCESS, answer::encode,
                request.header().method() == MadMethod.GET_TABLE ? SaAttribute.PATH_RECORD.tableStride() : 0);
    }

    private static PKey pkeyOf(int value) throws SaStatusException {
        try {
            return PKey.of(value);
        } catch (IllegalArgumentException e) {
            throw new SaStatusException(SaStatus.REQUEST_INVALID, e.getMessage());
        }
    }

    // ---- MCMemberRecord --------------------------------------------------------------------------------

    private void mcMemberRecord(LoopPort from, SaMad request, MemorySegment in) throws SaStatusException, DecodeException {
        long mask = request.sa().componentMask();
        SaMcMemberRecord record = SaMcMemberRecord.decode(in, SaMad.DATA_OFFSET);
        switch (request.header().method()) {
            case MadMethod.SET -> join(from, request, mask, record);
            case MadMethod.DELETE -> leave(from, request, mask, record);
            case MadMethod.GET, MadMethod.GET_TABLE -> query(from, request, mask, record);
            default -> throw new SaStatusException(SaStatus.METHOD_ATTRIBUTE_NOT_SUPPORTED,
                    "MCMemberRecord method " + request.header().method());
        }
    }

    private void join(LoopPort from, SaMad request, long mask, SaMcMemberRecord record) throws SaStatusException {
        if ((mask & SaMcMemberRecord.JOIN_COMPONENTS) != SaMcMemberRecord.JOIN_COMPONENTS) {
            throw new SaStatusException(SaStatus.INSUFFICIENT_COMPONENTS, "join needs MGID, PortGID and JoinState");
        }
        checkRequester(from, record);
        if (!sendOnlyFullMember && (record.joinState() & JoinState.SEND_ONLY_FULL_MEMBER.bit()) != 0) {
            throw new SaStatusException(SaStatus.REQUEST_INVALID, "JoinState SendOnlyFullMember is not supported "
                    + "by this SA (ClassPortInfo CapabilityMask2 bit 12 clear)");
        }
        Mgid mgid = mgidOf(record);
        LoopPort member = sm.portByGid(record.portGid());
        McMemberRecord joined;
        // The checks and the join under the SM's lock: the group cannot change between them.
        synchronized (sm) {
            MulticastGroup existing = sm.group(mgid);
            McMemberRecord template = null;
            if (existing == null) {
                if ((mask & REQUIRED_CREATE_COMPONENTS) == REQUIRED_CREATE_COMPONENTS) {
                    if ((record.joinState() & MulticastGroup.FULL_BITS) != 0) {
                        McMemberRules.ipoibCreation(mask, record, g -> sm.group(new Mgid(g)));
                    }
                    template = createTemplate(from, mask, record, mgid);
                }
            } else {
                McMemberRules.joinExisting(mask, record, existing);
                if (member != null) {
                    McMemberRules.moreComponentsAndPortCaps(mask, record, existing, member, fabric.config().rate());
                }
            }
            joined = sm.join(mgid, record.portGid(), record.joinState(), template);
        }
        SaMcMemberRecord answer = SaMcMemberRecord.fromApi(joined);
        answer(from, request, SaStatus.SUCCESS, answer::encode, 0);
    }

    /** The group a create would make: requested values, or the port's where a component is absent. */
    private McMemberRecord createTemplate(LoopPort from, long mask, SaMcMemberRecord r, Mgid mgid)
            throws SaStatusException {
        try {
            IbMtu mtu = (mask & SaMcMemberRecord.CM_MTU) != 0 && r.mtu() != 0 ? IbMtu.fromCode(r.mtu()) : from.activeMtu();
            Rate rate = (mask & SaMcMemberRecord.CM_RATE) != 0 && r.rate() != 0 ? Rate.fromCode(r.rate())
                    : fabric.config().rate();
            int lifetime = (mask & SaMcMemberRecord.CM_PACKET_LIFE_TIME) != 0 ? r.packetLifeTime()
                    : SubnetManager.PACKET_LIFETIME;
            int hopLimit = (mask & SaMcMemberRecord.CM_HOP_LIMIT) != 0 ? r.hopLimit() : 0;
            return new McMemberRecord(mgid, r.portGid(), QKey.of(r.qkey()), Lid.UNASSIGNED, mtu, r.trafficClass(),
                    PKey.of(r.pkey()), rate, lifetime, r.serviceLevel(), r.flowLabel(), hopLimit,
                    JoinState.FULL_MEMBER, false);
        } catch (IllegalArgumentException e) {
            throw new SaStatusException(SaStatus.REQUEST_INVALID, "create parameters: " + e.getMessage());
        }
    }

    private void leave(LoopPort from, SaMad request, long mask, SaMcMemberRecord record) throws SaStatusException {
        if ((mask & SaMcMemberRecord.JOIN_COMPONENTS) != SaMcMemberRecord.JOIN_COMPONENTS) {
            throw new SaStatusException(SaStatus.INSUFFICIENT_COMPONENTS, "leave needs MGID, PortGID and JoinState");
        }
        checkRequester(from, record);
        McMemberRecord left = sm.leave(mgidOf(record), record.portGid(), record.joinState());
        SaMcMemberRecord answer = SaMcMemberRecord.fromApi(left);
        answer(from, request, SaStatus.SUCCESS, answer::encode, 0);
    }

    /**
     * Get and GetTable as OpenSM 3.3.23 answers them (mcmr_by_comp_mask and mcmr_query_mgrp,
     * osm_sa_mcmember_record.c:1470-1683): groups of the requester's partitions whose MGID, MLID,
     * Q_Key, P_Key, TClass, SL, FlowLabel, HopLimit and MTU/rate selectors match the components;
     * with a PortGID component the record of that member, else a trusted requester (SM_Key 1)
     * gets a record per member whose Scope/JoinState match and an untrusted one (SM_Key 0) a
     * record per group. For an untrusted requester PortGID, JoinState and ProxyJoin are zero.
     */
    private void query(LoopPort from, SaMad request, long mask, SaMcMemberRecord record) throws SaStatusException {
        boolean trusted = request.sa().smKey() == TRUSTED_SM_KEY;
        int stateMask = ((mask & SaMcMemberRecord.CM_SCOPE) != 0 ? 0xF0 : 0)
                | ((mask & SaMcMemberRecord.CM_JOIN_STATE) != 0 ? 0x0F : 0);
        int wanted = record.scope() << 4 | record.joinState();
        List<SaMcMemberRecord> matches = new ArrayList<>();
        for (MulticastGroup g : sm.groups()) {
            if ((mask & SaMcMemberRecord.CM_MGID) != 0 && !g.mgid().gid().equals(record.mgid())
                    || (mask & SaMcMemberRecord.CM_MLID) != 0 && g.mlid != record.mlid()
                    || from.partitionKey(g.pkey) == null
                    || McMemberRules.otherComponents(mask, record, g) != null
                    || !McMemberRules.selectorsHold(mask, record, g)) {
                continue;
            }
            java.util.Map<Gid, Integer> members = g.members();
            if (members.isEmpty()) {
                continue; // a configured group without members shows no records, as in OpenSM
            }
            int scope = g.mgid().scope() << 4;
            if ((mask & SaMcMemberRecord.CM_PORT_GID) != 0) {
                Integer bits = members.get(record.portGid());
                if (bits != null && (stateMask & wanted) == (stateMask & (scope | bits))) {
                    matches.add(SaMcMemberRecord.fromApi(g.record(record.portGid(), bits)));
                }
            } else if (trusted) {
                members.forEach((port, bits) -> {
                    if ((stateMask & wanted) == (stateMask & (scope | bits))) {
                        matches.add(SaMcMemberRecord.fromApi(g.record(port, bits)));
                    }
                });
            } else {
                matches.add(SaMcMemberRecord.fromApi(g.record(Gid.ZERO, JoinState.FULL_MEMBER.bit())));
            }
        }
        if (!trusted) {
            // IBA p923: PortGID, JoinState and ProxyJoin are zero except for a trusted request.
            matches.replaceAll(r -> new SaMcMemberRecord(r.mgid(), Gid.ZERO, r.qkey(), r.mlid(), r.mtuSelector(),
                    r.mtu(), r.trafficClass(), r.pkey(), r.rateSelector(), r.rate(), r.packetLifeTimeSelector(),
                    r.packetLifeTime(), r.serviceLevel(), r.flowLabel(), r.hopLimit(), r.scope(), 0, false));
        }
        if (request.header().method() == MadMethod.GET) {
            if (matches.isEmpty()) {
                throw new SaStatusException(SaStatus.NO_RECORDS, "no matching member record");
            }
            if (matches.size() > 1) {
                throw new SaStatusException(SaStatus.TOO_MANY_RECORDS, matches.size() + " member records match");
            }
            answer(from, request, SaStatus.SUCCESS, matches.get(0)::encode, 0);
            return;
        }
        answerTable(from, request, SaAttribute.MC_MEMBER_RECORD.tableStride(),
                matches.stream().map(r -> (AttributeWriter) r::encode).toList());
    }

    /**
     * A requester may join or leave for another port when the two ports share a partition
     * (OpenSM 3.3.23 mcmr_rcv_join_mgrp, osm_sa_mcmember_record.c:1222-1229: osm_physp_share_pkey,
     * no SM_Key condition): a proxy join.
     */
    private void checkRequester(LoopPort from, SaMcMemberRecord record) throws SaStatusException {
        if (record.portGid().equals(from.gid(0))) {
            return;
        }
        LoopPort target = sm.portByGid(record.portGid());
        if (target == null) {
            throw new SaStatusException(SaStatus.REQUEST_INVALID, "unknown port GID " + record.portGid());
        }
        if (!sharePKey(from, target)) {
            throw new SaStatusException(SaStatus.REQUEST_INVALID, "proxy join: port " + record.portGid()
                    + " and requester " + from.gid(0) + " don't share a P_Key");
        }
    }

    /** osm_physp_share_pkey: a partition both ports are in, at least one as full member. */
    static boolean sharePKey(LoopPort a, LoopPort b) {
        for (PKey key : a.pkeyTable().keys()) {
            PKey other = b.partitionKey(key);
            if (other != null && (key.isFullMember() || other.isFullMember())) {
                return true;
            }
        }
        return false;
    }

    private static Mgid mgidOf(SaMcMemberRecord record) throws SaStatusException {
        if (!record.mgid().isMulticast()) {
            throw new SaStatusException(SaStatus.INVALID_GID, "MGID " + record.mgid() + " is not a multicast GID");
        }
        return new Mgid(record.mgid());
    }

    // ---- InformInfo and reports ---------------------------------------------------------------------------

    private void informInfo(LoopPort from, SaMad request, MemorySegment in) throws SaStatusException, DecodeException {
        if (request.header().method() != MadMethod.SET) {
            throw new SaStatusException(SaStatus.METHOD_ATTRIBUTE_NOT_SUPPORTED, "InformInfo method "
                    + request.header().method());
        }
        InformInfo info = InformInfo.decode(in, SaMad.DATA_OFFSET);
        Mgid mgid = info.gid().equals(Gid.ZERO) ? null : mgidOf(info.gid());
        if (info.subscribe()) {
            sm.subscribe(from, info.trapNumberOrDeviceId(), mgid, info.qpn());
        } else {
            sm.unsubscribe(from, info.trapNumberOrDeviceId(), mgid);
        }
        answer(from, request, SaStatus.SUCCESS, info::encode, 0);
    }

    private static Mgid mgidOf(Gid gid) throws SaStatusException {
        if (!gid.isMulticast()) {
            throw new SaStatusException(SaStatus.INVALID_GID, "GID " + gid + " of a group trap subscription is not multicast");
        }
        return new Mgid(gid);
    }

    @Override
    public void report(LoopPort subscriber, int trapNumber, Mgid mgid, Object subscription) {
        SaFaults f = faults;
        if (f.trapLossPercent() > 0) {
            boolean lose;
            synchronized (random) {
                lose = random.nextInt(100) < f.trapLossPercent();
            }
            if (lose) {
                trapsLost.increment();
                return;
            }
        }
        GroupTrap.Type type = trapNumber == 66 ? GroupTrap.Type.CREATED : GroupTrap.Type.DELETED;
        Notice notice = Notice.forGroupTrap(type, mgid, SubnetManager.SM_LID, smGid);
        byte[] bytes = new byte[SaMad.LENGTH];
        MemorySegment out = MemorySegment.ofArray(bytes);
        SaMad.request(MadMethod.REPORT, reportTid.incrementAndGet(), Notice.ATTRIBUTE_ID, 0, 0).encode(out, 0);
        notice.encode(out, SaMad.DATA_OFFSET);
        trapsSent.increment();
        // Reports leave on the SA's loop, after the answer to the request that caused them.
        if (loop.isClosed()) {
            // The SA is being closed (a reconfiguration or shutdown): the report has nowhere to go.
            trapsLost.increment();
        } else {
            loop.execute(() -> transport(subscriber).deliver(bytes));
        }
    }

    // ---- answers ----------------------------------------------------------------------------------------

    @FunctionalInterface
    private interface AttributeWriter {
        void write(MemorySegment segment, long offset);
    }

    /**
     * Sends the response: the request's TID and attribute, the response method, the status;
     * {@code tableStride} > 0 makes a GetTable answer (AttributeOffset in 8-octet words).
     */
    private void answer(LoopPort to, SaMad request, int status, AttributeWriter attribute, int tableStride) {
        if (status == SaStatus.SUCCESS && request.header().method() == MadMethod.GET_TABLE && tableStride > 0) {
            answerTable(to, request, tableStride, attribute == null ? List.of() : List.of(attribute));
            return;
        }
        statusCounts.computeIfAbsent(status, k -> new LongAdder()).increment();
        byte[] bytes = new byte[SaMad.LENGTH];
        MemorySegment out = MemorySegment.ofArray(bytes);
        SaMad response = request.response(status);
        int stride = tableStride > 0 ? tableStride
                : SaAttribute.byId(request.header().attributeId()).map(SaAttribute::tableStride).orElse(0);
        response = response.withSa(new SaHeader(0, stride / 8, request.sa().componentMask()));
        response.encode(out, 0);
        if (attribute != null && status == SaStatus.SUCCESS) {
            attribute.write(out, SaMad.DATA_OFFSET);
        }
        transport(to).deliver(bytes);
    }

    /**
     * A successful GetTable answer: the records one after the other, {@code stride} octets apart,
     * sent with RMPP as OpenSM's are through a kernel MAD layer (osm_sa.c osm_sa_respond marks
     * every GetTableResp RMPP Active; AttributeOffset 0 when there is no record), whatever their
     * number: one segment or many.
     */
    private void answerTable(LoopPort to, SaMad request, int stride, List<AttributeWriter> records) {
        statusCounts.computeIfAbsent(SaStatus.SUCCESS, k -> new LongAdder()).increment();
        MemorySegment header = MemorySegment.ofArray(new byte[SaMad.LENGTH]);
        request.response(SaStatus.SUCCESS).withSa(new SaHeader(0, records.isEmpty() ? 0 : stride / 8,
                request.sa().componentMask())).encode(header, 0);
        byte[] payload = new byte[records.size() * stride];
        MemorySegment out = MemorySegment.ofArray(payload);
        for (int i = 0; i < records.size(); i++) {
            records.get(i).write(out, (long) i * stride);
        }
        rmpp.send(to, header, payload);
    }

    /** Requests by kind, {@code "<attribute> <method>"}, as {@link SubnetManager#requestCounts}. */
    public Map<String, Long> requestCounts() {
        return sm.requestCounts();
    }

    /** Answers by MAD status. */
    public Map<Integer, Long> answerCounts() {
        Map<Integer, Long> out = new java.util.TreeMap<>();
        statusCounts.forEach((status, n) -> out.put(status, n.sum()));
        return out;
    }

    /** Requests dropped without an answer (the sa-drop fault). */
    public long droppedRequests() {
        return dropped.sum();
    }

    public long trapsReported() {
        return trapsSent.sum();
    }

    /** Traps the trap-loss fault lost. */
    public long trapsLost() {
        return trapsLost.sum();
    }

    /** RMPP transfers of table answers: their counters by name, as {@code fabric:sa} shows them. */
    public Map<String, Long> rmppStatistics() {
        return rmpp.statistics();
    }

    /** Tasks of the SA's loop that threw. */
    public long loopFailures() {
        return loopFailures.count();
    }

    /** Statistics: requests by kind, answers by status, drops and traps. */
    public Map<String, Long> statistics() {
        Map<String, Long> out = new java.util.LinkedHashMap<>(sm.requestCounts());
        statusCounts.forEach((status, n) -> out.put("answers " + SaStatus.describe(status), n.sum()));
        out.put("requests dropped", dropped.sum());
        out.put("traps reported", trapsSent.sum());
        out.put("traps lost", trapsLost.sum());
        out.putAll(rmpp.statistics());
        out.put("loop failures", loopFailures.count());
        return out;
    }

    @Override
    public void close() {
        sm.setTrapSink(null);
        rmpp.close();
        loop.close();
        if (loop instanceof ThreadControlLoop thread && !thread.inLoop()) {
            try {
                thread.awaitTermination(5, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
