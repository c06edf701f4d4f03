package ipoib.verbs.loopback.fabric;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ipoib.api.Gid;
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
import ipoib.api.sa.SaException;
import ipoib.api.sa.SaStatus;
import ipoib.runtime.FailureHandler;
import ipoib.runtime.ThreadControlLoop;
import ipoib.sa.SaClient;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The emulated SA answers the SA client's MADs with OpenSM's statuses and fields: the client and
 * the emulation meet only through the codec's MAD encoding.
 */
class SaEmulationTest {
    private static final Mgid BROADCAST = Mgid.parse("ff12:401b:ffff::ffff:ffff");
    private static final Mgid GROUP = Mgid.parse("ff12:401b:ffff::e000:fb");

    private Fabric fabric;
    private SubnetAdministratorEmulator sa;
    private ThreadControlLoop timers;
    private SaClient a;
    private SaClient b;
    private LoopPort portA;
    private LoopPort portB;

    @BeforeEach
    void start() {
        FabricConfig d = FabricConfig.defaults();
        fabric = new Fabric(new FabricConfig(3, 1, d.subnetPrefix(), d.nodeGuidBase(), IbMtu.MTU_2048, Rate.RATE_10_GBPS,
                List.of(PartitionConfig.parse("Default=0x7fff, ipoib, mtu=4, rate=3, sl=2, Q_Key=0x0b1b, defmember=full : ALL ;"),
                        PartitionConfig.parse("Other=0x0001 : loop0=full ;")), 7));
        fabric.start();
        sa = new SubnetAdministratorEmulator(fabric);
        timers = new ThreadControlLoop("sa-client-timers", FailureHandler.JAVA_LOGGING);
        portA = fabric.devices().get(0).loopPorts().get(0);
        portB = fabric.devices().get(1).loopPorts().get(0);
        // A generous wait per attempt: on a loaded machine 200 ms went by without the SA thread running.
        a = new SaClient(sa.transport(portA), timers, ANSWER_MILLIS, 3, 1);
        b = new SaClient(sa.transport(portB), timers, ANSWER_MILLIS, 3, 1);
    }

    private static final long ANSWER_MILLIS = 2_000;

    @AfterEach
    void stop() {
        a.close();
        b.close();
        timers.close();
        sa.close();
        fabric.close();
    }

    private static <T> T get(CompletionStage<T> stage) throws Exception {
        return stage.toCompletableFuture().get(30, TimeUnit.SECONDS);
    }

    private static SaException failure(CompletionStage<?> stage) {
        ExecutionException e = assertThrows(ExecutionException.class, () -> get(stage));
        return assertInstanceOf(SaException.class, e.getCause());
    }

    @Test
    void broadcastGroupFromThePartitionConfigurationExistsBeforeTheFirstJoin() throws Exception {
        McMemberRecord joined = get(a.join(BROADCAST, portA.gid(0), JoinState.FULL_MEMBER));
        assertEquals(QKey.of(0x0b1b), joined.qkey());
        assertEquals(IbMtu.MTU_2048, joined.mtu());
        assertEquals(2, joined.serviceLevel());
        assertEquals(PKey.of(0xffff), joined.pkey());
        assertTrue(joined.mlid().isMulticast());
        assertEquals(portA.gid(0), joined.portGid());
    }

    @Test
    void pathRecordNamesTheDestinationsLidAndGid() throws Exception {
        PathRecord path = get(a.pathRecord(portA.gid(0), portB.gid(0), PKey.DEFAULT));
        assertEquals(Lid.of(portB.lidValue()), path.destinationLid());
        assertEquals(Lid.of(portA.lidValue()), path.sourceLid());
        assertEquals(portB.gid(0), path.destinationGid());
        assertEquals(IbMtu.MTU_2048, path.mtu());
        assertEquals(2, path.serviceLevel());
    }

    @Test
    void pathRecordToAnUnknownGidHasNoRecords() {
        assertEquals(SaStatus.NO_RECORDS, failure(a.pathRecord(portA.gid(0), Gid.parse("fe80::dead"), PKey.DEFAULT)).status());
    }

    @Test
    void pathRecordAcrossPartitionsHasNoRecords() {
        assertEquals(SaStatus.NO_RECORDS, failure(a.pathRecord(portA.gid(0), portB.gid(0), PKey.of(0x8001))).status());
    }

    @Test
    void joiningAMissingGroupWithoutCreateComponentsIsInsufficientComponents() {
        assertEquals(SaStatus.INSUFFICIENT_COMPONENTS, failure(a.join(GROUP, portA.gid(0), JoinState.FULL_MEMBER)).status());
    }

    private McMemberRecord template(Gid port) {
        return new McMemberRecord(GROUP, port, QKey.of(0x0b1b), Lid.UNASSIGNED, IbMtu.MTU_2048, 0, PKey.DEFAULT,
                Rate.RATE_10_GBPS, 0, 2, 0, 0, JoinState.FULL_MEMBER, false);
    }

    @Test
    void createThenJoinByAnotherHostListsBothMembers() throws Exception {
        McMemberRecord created = get(a.create(template(portA.gid(0))));
        assertTrue(created.mlid().isMulticast());
        McMemberRecord joined = get(b.join(GROUP, portB.gid(0), JoinState.FULL_MEMBER));
        assertEquals(created.mlid(), joined.mlid(), "same group");
        List<McMemberRecord> members = get(a.groups()).stream().filter(r -> r.mgid().equals(GROUP)).toList();
        assertEquals(2, members.size());
        assertTrue(members.stream().anyMatch(r -> r.portGid().equals(portA.gid(0))));
        assertTrue(members.stream().anyMatch(r -> r.portGid().equals(portB.gid(0))));
    }

    @Test
    void groupIsDeletedWhenTheLastFullMemberLeavesAndNonMembersDoNotKeepIt() throws Exception {
        get(a.create(template(portA.gid(0))));
        get(b.join(GROUP, portB.gid(0), JoinState.NON_MEMBER));
        assertTrue(get(a.group(GROUP)).isPresent());
        get(a.leave(GROUP, portA.gid(0), JoinState.FULL_MEMBER));
        assertEquals(Optional.empty(), get(a.group(GROUP)), "only a NonMember was left");
        assertEquals(SaStatus.REQUEST_INVALID, failure(a.leave(GROUP, portA.gid(0), JoinState.FULL_MEMBER)).status(),
                "OpenSM answers a leave of a missing group with 'request invalid'");
    }

    @Test
    void configuredBroadcastGroupSurvivesTheLastLeave() throws Exception {
        get(a.join(BROADCAST, portA.gid(0), JoinState.FULL_MEMBER));
        get(a.leave(BROADCAST, portA.gid(0), JoinState.FULL_MEMBER));
        get(b.join(BROADCAST, portB.gid(0), JoinState.FULL_MEMBER));
    }

    @Test
    void createOnlyByAFullMember() {
        McMemberRecord sendOnly = template(portA.gid(0)).forMember(portA.gid(0), JoinState.SEND_ONLY_NON_MEMBER);
        assertEquals(SaStatus.REQUEST_INVALID, failure(a.create(sendOnly)).status());
    }

    @Test
    void aProxyJoinNeedsASharedPartitionNotTheSmKey() throws Exception {
        // OpenSM 3.3.23 mcmr_rcv_join_mgrp: a proxy join is refused only when the ports share no P_Key.
        try (SaClient untrusted = new SaClient(sa.transport(portA), timers, ANSWER_MILLIS, 3, 0)) {
            assertEquals(portB.gid(0), get(untrusted.join(BROADCAST, portB.gid(0), JoinState.FULL_MEMBER)).portGid());
        }
        a = new SaClient(sa.transport(portA), timers, ANSWER_MILLIS, 3, 1);
        fabric.setPKeys(portB, List.of(PKey.of(0x8002)));
        assertEquals(SaStatus.REQUEST_INVALID,
                failure(a.join(BROADCAST, portB.gid(0), JoinState.FULL_MEMBER)).status(), "no shared P_Key");
    }

    @Test
    void requestsAnsweredByAnInjectedErrorAreCountedByKind() {
        sa.setFaults(SaFaults.NONE.with(FaultKind.SA_ERROR, 100).with(FaultKind.SA_STATUS, SaStatus.BUSY));
        assertEquals(SaStatus.BUSY, failure(a.join(BROADCAST, portA.gid(0), JoinState.FULL_MEMBER)).status());
        assertEquals(SaStatus.BUSY, failure(a.pathRecord(portA.gid(0), portB.gid(0), PKey.DEFAULT)).status());
        assertEquals(1L, sa.statistics().get("MCMemberRecord Set"), sa.statistics().toString());
        assertEquals(1L, sa.statistics().get("PathRecord Get"), sa.statistics().toString());
    }

    @Test
    void aRequestThatCannotBeSentIsALocalFailureNotAnSaStatus() {
        fabric.portDown(portA);
        SaException e = failure(a.pathRecord(portA.gid(0), portB.gid(0), PKey.DEFAULT));
        assertTrue(e.isLocalFailure(), e.getMessage());
        assertEquals(-1, e.status());
        assertFalse(e.getMessage().contains("SA status"), e.getMessage());
        assertTrue(e.getMessage().contains("DOWN"), e.getMessage());
        assertEquals(1L, a.statistics().get("not_sent"));
    }

    @Test
    void configuredGroupsReportCreationAtTheFirstJoinAndDeletionAtTheLastLeave() throws Exception {
        LinkedBlockingQueue<GroupTrap> traps = new LinkedBlockingQueue<>();
        get(b.subscribe(GroupTrap.Type.CREATED, null, traps::add));
        get(b.subscribe(GroupTrap.Type.DELETED, null, traps::add));
        get(a.join(BROADCAST, portA.gid(0), JoinState.FULL_MEMBER));
        assertEquals(GroupTrap.Type.CREATED, traps.poll(30, TimeUnit.SECONDS).type());
        get(a.leave(BROADCAST, portA.gid(0), JoinState.FULL_MEMBER));
        assertEquals(GroupTrap.Type.DELETED, traps.poll(30, TimeUnit.SECONDS).type());
        assertEquals(Optional.empty(), get(a.group(BROADCAST)), "no members, no records");
        assertEquals(Lid.MULTICAST_BASE, get(a.join(BROADCAST, portA.gid(0), JoinState.FULL_MEMBER)).mlid().value(),
                "the configured group keeps its MLID");
    }

    @Test
    void createAndDeleteTrapsReachASubscriber() throws Exception {
        LinkedBlockingQueue<GroupTrap> traps = new LinkedBlockingQueue<>();
        AutoCloseable created = get(b.subscribe(GroupTrap.Type.CREATED, null, traps::add));
        get(b.subscribe(GroupTrap.Type.DELETED, GROUP, traps::add));
        get(a.create(template(portA.gid(0))));
        GroupTrap first = traps.poll(30, TimeUnit.SECONDS);
        assertEquals(new GroupTrap(GroupTrap.Type.CREATED, GROUP, GROUP.gid()), first);
        get(a.leave(GROUP, portA.gid(0), JoinState.FULL_MEMBER));
        GroupTrap second = traps.poll(30, TimeUnit.SECONDS);
        assertEquals(GroupTrap.Type.DELETED, second.type());
        created.close();
        get(a.create(template(portA.gid(0))));
        get(a.leave(GROUP, portA.gid(0), JoinState.FULL_MEMBER));
        GroupTrap third = traps.poll(30, TimeUnit.SECONDS);
        assertEquals(GroupTrap.Type.DELETED, third.type(), "the created-subscription was closed; only deletes arrive");
        assertTrue(traps.isEmpty());
    }

    @Test
    void droppedRequestsAreRetransmittedUntilTheyTimeOut() {
        a = new SaClient(sa.transport(portA), timers, 200, 3, 1);
        sa.setFaults(SaFaults.NONE.with(FaultKind.SA_DROP, 100));
        SaException e = failure(a.pathRecord(portA.gid(0), portB.gid(0), PKey.DEFAULT));
        assertTrue(e.isTimeout());
        assertTrue(e.getMessage().contains("3 attempts"), e.getMessage());
        assertEquals(3L, a.statistics().get("sent"));
    }

    @Test
    void injectedErrorStatusReachesTheCaller() {
        sa.setFaults(SaFaults.NONE.with(FaultKind.SA_ERROR, 100).with(FaultKind.SA_STATUS, SaStatus.BUSY));
        assertEquals(SaStatus.BUSY, failure(a.join(BROADCAST, portA.gid(0), JoinState.FULL_MEMBER)).status());
    }

    @Test
    void lostTrapsAreCounted() throws Exception {
        sa.setFaults(SaFaults.NONE.with(FaultKind.TRAP_LOSS, 100));
        LinkedBlockingQueue<GroupTrap> traps = new LinkedBlockingQueue<>();
        get(b.subscribe(GroupTrap.Type.CREATED, null, traps::add));
        get(a.create(template(portA.gid(0))));
        assertEquals(1L, sa.statistics().get("traps lost"));
        assertFalse(traps.poll(100, TimeUnit.MILLISECONDS) != null);
    }

    /**
     * When a port goes down the SM drops its memberships; its consumers then leave each group. The
     * SA refuses those Deletes as OpenSM does ('request invalid'), at DEBUG: a port reset is not
     * worth an INFO line per group.
     */
    @Test
    void aLeaveAfterThePortWentDownIsRefusedAtDebugNotInfo() throws Exception {
        java.util.logging.Logger log = java.util.logging.Logger.getLogger(SubnetAdministratorEmulator.class.getName());
        List<java.util.logging.LogRecord> records = new java.util.concurrent.CopyOnWriteArrayList<>();
        java.util.logging.Handler handler = new java.util.logging.Handler() {
            @Override
            public void publish(java.util.logging.LogRecord r) {
                records.add(r);
            }

            @Override
            public void flush() {
            }

            @Override
            public void close() {
            }
        };
        java.util.logging.Level level = log.getLevel();
        log.setLevel(java.util.logging.Level.FINE);
        log.addHandler(handler);
        try {
            get(a.join(BROADCAST, portA.gid(0), JoinState.FULL_MEMBER));
            fabric.portDown(portA);
            fabric.portUp(portA);
            assertEquals(SaStatus.REQUEST_INVALID, failure(a.leave(BROADCAST, portA.gid(0), JoinState.FULL_MEMBER)).status());
            List<java.util.logging.LogRecord> refusals = records.stream()
                    .filter(r -> r.getMessage() != null && r.getMessage().contains("emulated SA refused MCMemberRecord Delete"))
                    .toList();
            assertEquals(1, refusals.size(), records.toString());
            assertEquals(java.util.logging.Level.FINE, refusals.get(0).getLevel());
        } finally {
            log.removeHandler(handler);
            log.setLevel(level);
        }
    }

    /**
     * A refusal is logged naming OpenSM's rule and error code, as OpenSM's log names
     * them (osm_sa_mcmember_record.c ERR 1B1B, 1B1A with 1B30). The line is written before the
     * answer is sent, so it is there when the caller sees the failure.
     */
    @Test
    void aRefusalIsLoggedNamingOpenSmsRule() throws Exception {
        java.util.logging.Logger log = java.util.logging.Logger.getLogger(SubnetAdministratorEmulator.class.getName());
        List<String> lines = new java.util.concurrent.CopyOnWriteArrayList<>();
        java.util.logging.Handler handler = new java.util.logging.Handler() {
            @Override
            public void publish(java.util.logging.LogRecord r) {
                lines.add(r.getMessage());
            }

            @Override
            public void flush() {
            }

            @Override
            public void close() {
            }
        };
        java.util.logging.Level level = log.getLevel();
        log.setLevel(java.util.logging.Level.INFO);
        log.addHandler(handler);
        try {
            // Rule 1: a scope-5 IPoIB group while no scope-5 broadcast group exists.
            McMemberRecord scope5 = new McMemberRecord(Mgid.parse("ff15:401b:ffff::e000:101"), portA.gid(0),
                    QKey.of(0x0b1b), Lid.UNASSIGNED, IbMtu.MTU_2048, 0, PKey.DEFAULT, Rate.RATE_10_GBPS, 0, 2, 0, 0,
                    JoinState.FULL_MEMBER, false);
            assertEquals(SaStatus.REQUEST_INVALID, failure(a.create(scope5)).status());
            assertTrue(lines.stream().anyMatch(l -> l.contains("emulated SA refused")
                    && l.contains("ERR 1B1B (ipoib_mcgroup_creation_validation)") && l.contains("ff15:401b:ffff::ffff:ffff")),
                    lines.toString());
            // Rule 2: a join of the existing broadcast group with another Q_Key.
            McMemberRecord otherQKey = new McMemberRecord(BROADCAST, portA.gid(0), QKey.of(0x1234), Lid.UNASSIGNED,
                    IbMtu.MTU_2048, 0, PKey.DEFAULT, Rate.RATE_10_GBPS, 0, 2, 0, 0, JoinState.FULL_MEMBER, false);
            assertEquals(SaStatus.REQUEST_INVALID, failure(a.create(otherQKey)).status());
            assertTrue(lines.stream().anyMatch(l -> l.contains("ERR 1B1A (mcgroup_join_validation)")
                    && l.contains("ERR 1B30 Q_Key mismatch: query 0x1234 group 0xb1b")), lines.toString());
        } finally {
            log.removeHandler(handler);
            log.setLevel(level);
        }
    }

    @Test
    void smChangeForgetsJoinsButKeepsConfiguredGroups() throws Exception {
        get(a.create(template(portA.gid(0))));
        get(a.join(BROADCAST, portA.gid(0), JoinState.FULL_MEMBER));
        fabric.smChange();
        assertEquals(Optional.empty(), get(a.group(GROUP)));
        assertTrue(fabric.subnetManager().group(BROADCAST).members().isEmpty());
        get(a.join(BROADCAST, portA.gid(0), JoinState.FULL_MEMBER));
    }
}
