package ipoib.verbs.fabric.internal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ipoib.api.IbMtu;
import ipoib.api.Lid;
import ipoib.api.verbs.AddressVector;
import ipoib.api.verbs.CompletionQueue;
import ipoib.api.verbs.CompletionStatus;
import ipoib.api.verbs.MemoryRegion;
import ipoib.api.verbs.Port;
import ipoib.api.verbs.QueuePairState;
import ipoib.api.verbs.RcQueuePair;
import ipoib.api.verbs.RcQueuePairConfig;
import ipoib.api.verbs.RcQueuePairEvent;
import ipoib.api.verbs.RcReceiveAttributes;
import ipoib.api.verbs.RcSendAttributes;
import ipoib.api.verbs.SharedReceiveQueue;
import ipoib.api.verbs.VerbsException;
import ipoib.api.verbs.WorkCompletions;
import ipoib.verbs.fabric.ffi.Consts;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.nio.file.Path;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The RC path of the hardware provider — shared receive queues, RC queue pairs through
 * RESET/INIT/RTR/RTS with the attribute masks ibv_modify_qp(3) requires, sends through an SRQ and
 * through a receive queue of the QP's own, error completions, QP events, and no allocation per
 * message — against src/test/c/fake_verbs.c, which carries RC between two of its QPs in-process
 * and keeps the attribute values it was given so that the test reads what reached the C side.
 * It proves the binding, not a driver (that needs hardware).
 */
// Restricted methods (native calls) are this code's purpose; the JVM runs with --enable-native-access.
@SuppressWarnings("restricted")
class FabricRcTest {
    @TempDir
    static Path dir;
    private static FakeVerbsLibrary fake;
    private static MethodHandle reset;
    private static MethodHandle rcAttr;
    private static MethodHandle calls;
    private static MethodHandle raiseQpEvent;

    private FabricRuntime runtime;
    private final Arena arena = Arena.ofShared();

    @BeforeAll
    static void buildTheFakeLibrary() throws Exception {
        fake = FakeVerbsLibrary.build(dir, "fake_verbs.c");
        reset = fake.hook("fake_reset", FunctionDescriptor.ofVoid());
        rcAttr = fake.hook("fake_rc_attr", FunctionDescriptor.of(ValueLayout.JAVA_LONG, ValueLayout.JAVA_INT,
                ValueLayout.ADDRESS));
        calls = fake.hook("fake_calls", FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.ADDRESS));
        raiseQpEvent = fake.hook("fake_raise_qp_event", FunctionDescriptor.of(ValueLayout.JAVA_INT,
                ValueLayout.JAVA_INT, ValueLayout.JAVA_INT));
    }

    @BeforeEach
    void start() throws Throwable {
        reset.invokeExact();
        runtime = FabricRuntime.start(new FabricRuntime.Settings(fake.path, "libibumad.so.3", Pattern.compile(".*"),
                1000, 3, 1), new TestConfig.RecordingLog().fabricLog());
        assertTrue(runtime.status().available(), runtime.status().reason());
    }

    @AfterEach
    void closeAndCheck() throws Throwable {
        runtime.close();
        arena.close();
        assertEquals("", fake.text("fake_leaks"), "resources the provider did not free");
        assertEquals("", fake.text("fake_violations"), "calls the fake refused");
    }

    private Port port() {
        return runtime.devices().get(0).port(1);
    }

    private static long attr(RcQueuePair qp, String name) throws Throwable {
        try (Arena a = Arena.ofConfined()) {
            return (long) rcAttr.invokeExact(qp.qpn().value(), a.allocateFrom(name));
        }
    }

    private static int calls(String what) throws Throwable {
        try (Arena a = Arena.ofConfined()) {
            return (int) calls.invokeExact(a.allocateFrom(what));
        }
    }

    private MemoryRegion region(Port p, int size) {
        return p.device().registerMemory(arena.allocate(size, 4096));
    }

    private static int pollUntil(CompletionQueue cq, WorkCompletions wc, int want) {
        return FakeVerbsLibrary.pollUntil(cq, wc, want);
    }

    /** Two connected RC queue pairs: {@code a} with a receive queue of its own, {@code b} on an SRQ. */
    private record Pair(RcQueuePair a, RcQueuePair b, SharedReceiveQueue srq, CompletionQueue sendCq,
                        CompletionQueue recvCq) {}

    private static final int PSN_A = 0x654321;
    private static final int PSN_B = 0x123456;

    private static Pair connect(Port p, boolean bToRts) {
        CompletionQueue sendCq = p.createCompletionQueue(64);
        CompletionQueue recvCq = p.createCompletionQueue(64);
        SharedReceiveQueue srq = p.createSharedReceiveQueue(16);
        RcQueuePair a = p.createRcQueuePair(new RcQueuePairConfig(sendCq, recvCq, null, 8, 8, 0));
        RcQueuePair b = p.createRcQueuePair(new RcQueuePairConfig(sendCq, recvCq, srq, 8, 8, 0));
        AddressVector self = AddressVector.local(Lid.of(7), 3);
        a.readyToReceive(new RcReceiveAttributes(b.qpn(), self, IbMtu.MTU_2048, PSN_B));
        b.readyToReceive(new RcReceiveAttributes(a.qpn(), self, IbMtu.MTU_4096, PSN_A));
        a.readyToSend(new RcSendAttributes(PSN_A, 14, 7, 6));
        if (bToRts) {
            b.readyToSend(new RcSendAttributes(PSN_B, 18, 0, 0));
        }
        return new Pair(a, b, srq, sendCq, recvCq);
    }

    @Test
    void theTransitionsCarryTheAttributesTheCmNegotiated() throws Throwable {
        Port p = port();
        CompletionQueue cq = p.createCompletionQueue(16);
        RcQueuePair lone = p.createRcQueuePair(new RcQueuePairConfig(cq, cq, null, 4, 4, 1));
        assertEquals(QueuePairState.INIT, lone.state());
        assertEquals(Consts.IBV_QPS_INIT, attr(lone, "state"));
        assertEquals(Consts.IBV_ACCESS_REMOTE_WRITE, attr(lone, "qp_access_flags"), "as ib_cm's cm_init_qp_init_attr");
        assertEquals(1, attr(lone, "pkey_index"));
        assertEquals("RC QP " + lone.qpn() + ": RTS needs RTR, the queue pair is INIT", assertThrows(
                VerbsException.class, () -> lone.readyToSend(new RcSendAttributes(0, 14, 7, 7))).getMessage());

        Pair c = connect(p, true);
        assertEquals(QueuePairState.RTS, c.a().state());
        assertEquals(Consts.IBV_QPS_RTS, attr(c.a(), "state"));
        assertEquals(c.b().qpn().value(), attr(c.a(), "dest_qp_num"));
        assertEquals(PSN_B, attr(c.a(), "rq_psn"));
        assertEquals(PSN_A, attr(c.a(), "sq_psn"));
        assertEquals(Consts.IBV_MTU_2048, attr(c.a(), "path_mtu"));
        assertEquals(Consts.IBV_MTU_2048, attr(c.b(), "path_mtu"), "4096 asked, the port's active MTU is 2048");
        assertEquals(7, attr(c.a(), "dlid"));
        assertEquals(3, attr(c.a(), "sl"));
        assertEquals(0, attr(c.a(), "is_global"));
        assertEquals(1, attr(c.a(), "port_num"));
        assertEquals(0, attr(c.a(), "min_rnr_timer"), "cm.c cm_init_qp_rtr_attr");
        assertEquals(0, attr(c.a(), "max_dest_rd_atomic"));
        assertEquals(0, attr(c.a(), "max_rd_atomic"));
        assertEquals(14, attr(c.a(), "timeout"));
        assertEquals(7, attr(c.a(), "retry_cnt"));
        assertEquals(6, attr(c.a(), "rnr_retry"));
        assertEquals(18, attr(c.b(), "timeout"));
        assertEquals(0, attr(c.b(), "retry_cnt"));
        assertEquals(1, attr(c.b(), "srq"));
        assertEquals("RC QP " + c.a().qpn() + ": RTR needs INIT, the queue pair is RTS", assertThrows(
                VerbsException.class, () -> c.a().readyToReceive(new RcReceiveAttributes(c.b().qpn(),
                        AddressVector.local(Lid.of(7), 0), IbMtu.MTU_2048, 0))).getMessage());
        c.a().toError();
        assertEquals(QueuePairState.ERROR, c.a().state());
        assertEquals(Consts.IBV_QPS_ERR, attr(c.a(), "state"));
    }

    @Test
    void messagesTravelThroughTheSharedReceiveQueueAndTheOwnReceiveQueue() throws Throwable {
        Port p = port();
        Pair c = connect(p, false);
        LinkedBlockingQueue<RcQueuePairEvent> events = new LinkedBlockingQueue<>();
        c.b().addEventListener(events::add);
        MemoryRegion mr = region(p, 32768);
        byte[] message = new byte[5000];
        for (int i = 0; i < message.length; i++) {
            message[i] = (byte) (i * 7 + 1);
        }
        MemorySegment.copy(message, 0, mr.segment(), ValueLayout.JAVA_BYTE, 0, message.length);
        assertTrue(c.srq().postReceive(41, mr, 8192, 8192));
        assertTrue(c.a().postSend(17, mr, 0, message.length));

        WorkCompletions wc = new WorkCompletions(8);
        assertEquals(1, pollUntil(c.recvCq(), wc, 1));
        assertEquals(41, wc.workRequestId(0));
        assertEquals(CompletionStatus.SUCCESS, wc.status(0));
        assertEquals(WorkCompletions.OPCODE_RECEIVE, wc.opcode(0));
        assertEquals(message.length, wc.byteLength(0), "RC buffers have no GRH area");
        assertEquals(c.b().qpn().value(), wc.queuePairNumber(0));
        assertEquals(c.a().qpn().value(), wc.sourceQpn(0));
        assertArrayEquals(message, mr.segment().asSlice(8192, message.length).toArray(ValueLayout.JAVA_BYTE));
        assertEquals(1, pollUntil(c.sendCq(), wc, 1));
        assertEquals(17, wc.workRequestId(0));
        assertEquals(CompletionStatus.SUCCESS, wc.status(0));
        assertEquals(WorkCompletions.OPCODE_SEND, wc.opcode(0));
        assertEquals((PSN_A + 3) & 0xFFFFFF, attr(c.a(), "sq_psn"), "5000 octets are 3 packets of 2048");
        assertEquals((PSN_A + 3) & 0xFFFFFF, attr(c.b(), "rq_psn"));

        RcQueuePairEvent established = events.poll(5, TimeUnit.SECONDS);
        assertEquals(new RcQueuePairEvent(c.b(), RcQueuePairEvent.Type.COMMUNICATION_ESTABLISHED), established,
                "the first packet reached b in RTR (its RTU could have been lost)");
        c.b().readyToSend(new RcSendAttributes(PSN_B, 14, 7, 7));

        assertTrue(c.a().postReceive(99, mr, 16384, 100));
        assertTrue(c.b().postSend(18, mr, 0, 64));
        assertEquals(1, pollUntil(c.recvCq(), wc, 1));
        assertEquals(99, wc.workRequestId(0));
        assertEquals(64, wc.byteLength(0));
        assertEquals(c.a().qpn().value(), wc.queuePairNumber(0));
        assertEquals(1, pollUntil(c.sendCq(), wc, 1));
        assertEquals(18, wc.workRequestId(0));
        assertEquals("RC QP " + c.b().qpn() + " takes its buffers from a shared receive queue: post there",
                assertThrows(VerbsException.class, () -> c.b().postReceive(1, mr, 0, 64)).getMessage());
        assertTrue(events.isEmpty(), "COMM_EST once: " + events);
    }

    @Test
    void aPeerThatIsGoneFailsTheSendAfterTheRetriesAndFlushesTheRest() throws Throwable {
        Port p = port();
        Pair c = connect(p, true);
        MemoryRegion mr = region(p, 8192);
        assertTrue(c.a().postReceive(5, mr, 4096, 1024));
        c.b().close();
        assertTrue(c.a().postSend(1, mr, 0, 100));
        WorkCompletions wc = new WorkCompletions(8);
        assertEquals(1, pollUntil(c.sendCq(), wc, 1));
        assertEquals(1, wc.workRequestId(0));
        assertEquals(CompletionStatus.RETRY_EXCEEDED, wc.status(0));
        assertEquals(QueuePairState.ERROR, c.a().state(), "the error completion moved the queue pair to ERROR");
        assertEquals(7, calls("rc_retransmissions"), "retry_cnt 7 retransmissions before the failure");
        assertEquals(1, pollUntil(c.recvCq(), wc, 1));
        assertEquals(5, wc.workRequestId(0));
        assertEquals(CompletionStatus.WORK_REQUEST_FLUSH_ERROR, wc.status(0));
        assertTrue(c.a().postSend(2, mr, 0, 100), "ERROR takes work and flushes it");
        assertEquals(1, pollUntil(c.sendCq(), wc, 1));
        assertEquals(2, wc.workRequestId(0));
        assertEquals(CompletionStatus.WORK_REQUEST_FLUSH_ERROR, wc.status(0));
    }

    @Test
    void aResponderWithoutABufferEndsInAnRnrError() {
        Port p = port();
        Pair c = connect(p, true);
        MemoryRegion mr = region(p, 4096);
        assertTrue(c.a().postSend(6, mr, 0, 10));
        WorkCompletions wc = new WorkCompletions(8);
        assertEquals(1, pollUntil(c.sendCq(), wc, 1));
        assertEquals(6, wc.workRequestId(0));
        assertEquals(CompletionStatus.RNR_RETRY_EXCEEDED, wc.status(0));
        assertEquals(QueuePairState.ERROR, c.a().state());
    }

    @Test
    void aMessageLongerThanTheBufferFailsBothSidesAndTheSrqQueuePairReachesItsLastWqe() throws Throwable {
        Port p = port();
        Pair c = connect(p, true);
        LinkedBlockingQueue<RcQueuePairEvent> events = new LinkedBlockingQueue<>();
        c.b().addEventListener(events::add);
        MemoryRegion mr = region(p, 8192);
        assertTrue(c.srq().postReceive(7, mr, 4096, 100));
        assertTrue(c.srq().postReceive(8, mr, 6144, 100));
        assertTrue(c.a().postSend(3, mr, 0, 101));
        WorkCompletions wc = new WorkCompletions(8);
        assertEquals(1, pollUntil(c.recvCq(), wc, 1));
        assertEquals(7, wc.workRequestId(0));
        assertEquals(CompletionStatus.LOCAL_LENGTH_ERROR, wc.status(0));
        assertEquals(1, pollUntil(c.sendCq(), wc, 1));
        assertEquals(CompletionStatus.REMOTE_INVALID_REQUEST_ERROR, wc.status(0));
        assertEquals(new RcQueuePairEvent(c.b(), RcQueuePairEvent.Type.LAST_WQE_REACHED),
                events.poll(5, TimeUnit.SECONDS));
        assertEquals(QueuePairState.ERROR, c.b().state());
        // The buffer the failed queue pair did not take stays with the SRQ: closing it flushes it.
        c.a().close();
        c.b().close();
        c.srq().close();
        assertEquals(1, pollUntil(c.recvCq(), wc, 1));
        assertEquals(8, wc.workRequestId(0));
        assertEquals(CompletionStatus.WORK_REQUEST_FLUSH_ERROR, wc.status(0));
    }

    @Test
    void aReceiveBufferWhoseRegionIsGoneIsARemoteOperationalError() {
        Port p = port();
        Pair c = connect(p, true);
        MemoryRegion send = region(p, 4096);
        MemoryRegion gone = region(p, 4096);
        assertTrue(c.srq().postReceive(9, gone, 0, 4096));
        gone.close();
        assertTrue(c.a().postSend(4, send, 0, 10));
        WorkCompletions wc = new WorkCompletions(8);
        assertEquals(1, pollUntil(c.recvCq(), wc, 1));
        assertEquals(CompletionStatus.LOCAL_PROTECTION_ERROR, wc.status(0));
        assertEquals(1, pollUntil(c.sendCq(), wc, 1));
        assertEquals(CompletionStatus.REMOTE_OPERATION_ERROR, wc.status(0));
    }

    @Test
    void queuePairEventsReachTheirListeners() throws Throwable {
        Port p = port();
        Pair c = connect(p, true);
        LinkedBlockingQueue<RcQueuePairEvent> events = new LinkedBlockingQueue<>();
        c.a().addEventListener(events::add);
        c.a().addEventListener(e -> {
            throw new IllegalStateException("a failing listener does not stop the others");
        });
        assertEquals(0, (int) raiseQpEvent.invokeExact(Consts.IBV_EVENT_QP_FATAL, c.a().qpn().value()));
        assertEquals(new RcQueuePairEvent(c.a(), RcQueuePairEvent.Type.FATAL), events.poll(5, TimeUnit.SECONDS));
        assertEquals(QueuePairState.ERROR, c.a().state());
        assertEquals(RcQueuePairEvent.Type.REQUEST_ERROR, FabricDevice.rcEventType(Consts.IBV_EVENT_QP_REQ_ERR));
        assertEquals(RcQueuePairEvent.Type.ACCESS_ERROR, FabricDevice.rcEventType(Consts.IBV_EVENT_QP_ACCESS_ERR));
    }

    @Test
    void misuseIsRefusedWithTheReason() {
        Port p = port();
        CompletionQueue cq = p.createCompletionQueue(16);
        SharedReceiveQueue srq = p.createSharedReceiveQueue(4);
        assertEquals("create shared receive queue: capacity 512 exceeds the device's max_srq_wr 256",
                assertThrows(VerbsException.class, () -> p.createSharedReceiveQueue(512)).getMessage());
        assertTrue(assertThrows(VerbsException.class, () -> p.createRcQueuePair(new RcQueuePairConfig(cq, cq, null,
                4, 4, 5))).getMessage().startsWith("create RC QP: P_Key index 5 is not a valid entry of port fake0/1"));
        assertEquals("create RC QP: queue depths 512/0 exceed the device's max_qp_wr 256", assertThrows(
                VerbsException.class, () -> p.createRcQueuePair(new RcQueuePairConfig(cq, cq, srq, 512, 4, 0)))
                .getMessage());
        RcQueuePair qp = p.createRcQueuePair(new RcQueuePairConfig(cq, cq, srq, 4, 4, 0));
        MemoryRegion mr = region(p, 4096);
        assertEquals("post send: RC QP " + qp.qpn() + " is INIT, not RTS",
                assertThrows(VerbsException.class, () -> qp.postSend(1, mr, 0, 10)).getMessage());
        assertEquals("close shared receive queue: RC queue pairs of device fake0 still use it; close them first",
                assertThrows(VerbsException.class, srq::close).getMessage());
        assertTrue(srq.postReceive(1, mr, 0, 64));
        assertEquals("post SRQ receive: buffer [4000, +100) lies outside the region of 4096 octets",
                assertThrows(VerbsException.class, () -> srq.postReceive(2, mr, 4000, 100)).getMessage());
        qp.close();
        assertEquals("post send: RC queue pair " + qp.qpn() + " is closed",
                assertThrows(VerbsException.class, () -> qp.postSend(1, mr, 0, 10)).getMessage());
        // Left open on purpose: closing the provider releases the SRQ after its last queue pair.
    }

    @Test
    void theRcDataPathAllocatesNothing() {
        Port p = port();
        Pair c = connect(p, true);
        MemoryRegion mr = region(p, 16384);
        WorkCompletions wc = new WorkCompletions(16);
        long measured = FakeVerbsLibrary.allocatedWhenWarm("RC data path: 20000 SRQ post/send/poll rounds", () -> {
            for (int i = 0; i < 20_000; i++) {
                c.srq().postReceive(i, mr, 8192, 8192);
                c.a().postSend(i, mr, 0, 4096);
                int n = 0;
                while (n < 1) {
                    n += c.recvCq().poll(wc);
                }
                n = 0;
                while (n < 1) {
                    n += c.sendCq().poll(wc);
                }
            }
        });
        assertTrue(measured < 20_000, "20000 RC rounds allocated " + measured + " bytes when warm");
        assertEquals(QueuePairState.RTS, c.a().state());
        assertFalse(wc.count() == 0);
    }
}
