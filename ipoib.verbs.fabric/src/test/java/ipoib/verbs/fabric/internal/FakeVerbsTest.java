package ipoib.verbs.fabric.internal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import ipoib.api.Gid;
import ipoib.api.Guid;
import ipoib.api.IbMtu;
import ipoib.api.Lid;
import ipoib.api.PKey;
import ipoib.api.QKey;
import ipoib.api.Qpn;
import ipoib.api.Rate;
import ipoib.api.verbs.AddressHandle;
import ipoib.api.verbs.AddressVector;
import ipoib.api.verbs.CompletionQueue;
import ipoib.api.verbs.CompletionStatus;
import ipoib.api.verbs.Device;
import ipoib.api.verbs.MemoryRegion;
import ipoib.api.verbs.PKeyTable;
import ipoib.api.verbs.Port;
import ipoib.api.verbs.PortAttributes;
import ipoib.api.verbs.PortEvent;
import ipoib.api.verbs.PortState;
import ipoib.api.verbs.ReceiveWorkRequests;
import ipoib.api.verbs.SendWorkRequests;
import ipoib.api.verbs.UdQueuePair;
import ipoib.api.verbs.UdQueuePairConfig;
import ipoib.api.verbs.VerbsException;
import ipoib.api.verbs.WorkCompletions;
import ipoib.verbs.fabric.ffi.Consts;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The provider's whole verbs path — discovery, port queries, memory registration, UD queue pairs
 * through INIT/RTR/RTS, address handles, multicast attach, post send/receive and poll through the
 * context's function pointers, completion channel waits, async events, and the release order —
 * run against src/test/c/fake_verbs.c, a libibverbs stand-in compiled here against the system's
 * verbs.h. It proves the binding's calls and struct contents on a machine without an HCA; it
 * does not prove a driver's behaviour (that needs hardware).
 */
// Restricted methods (native calls, reinterpreting driver pointers) are this code's purpose;
// the JVM runs with --enable-native-access.
@SuppressWarnings("restricted")
class FakeVerbsTest {
    private static final QKey QKEY = QKey.of(0x0b1b);
    @TempDir
    static Path dir;
    private static String library;
    private static MethodHandle violations;
    private static MethodHandle leaks;
    private static MethodHandle reset;
    private static MethodHandle setLegacy;
    private static MethodHandle calls;
    private static MethodHandle raiseAsync;

    private FabricRuntime runtime;
    private final Arena arena = Arena.ofShared();

    @BeforeAll
    static void buildTheFakeLibrary() throws Exception {
        FakeVerbsLibrary fake = FakeVerbsLibrary.build(dir, "fake_verbs.c");
        library = fake.path;
        violations = fake.hook("fake_violations", FunctionDescriptor.of(ValueLayout.ADDRESS));
        leaks = fake.hook("fake_leaks", FunctionDescriptor.of(ValueLayout.ADDRESS));
        reset = fake.hook("fake_reset", FunctionDescriptor.ofVoid());
        setLegacy = fake.hook("fake_set_legacy", FunctionDescriptor.ofVoid(ValueLayout.JAVA_INT));
        calls = fake.hook("fake_calls", FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.ADDRESS));
        raiseAsync = fake.hook("fake_raise_async_event", FunctionDescriptor.of(ValueLayout.JAVA_INT,
                ValueLayout.JAVA_INT, ValueLayout.JAVA_INT));
    }

    private static String text(MethodHandle h) throws Throwable {
        return ((MemorySegment) h.invokeExact()).reinterpret(8192).getString(0);
    }

    private static int calls(String what) throws Throwable {
        try (Arena a = Arena.ofConfined()) {
            return (int) calls.invokeExact(a.allocateFrom(what));
        }
    }

    @BeforeEach
    void start() throws Throwable {
        reset.invokeExact();
    }

    private FabricRuntime startRuntime() {
        runtime = FabricRuntime.start(new FabricRuntime.Settings(library, "libibumad.so.3", Pattern.compile(".*"),
                1000, 3, 1), new TestConfig.RecordingLog().fabricLog());
        return runtime;
    }

    @AfterEach
    void closeAndCheck() throws Throwable {
        if (runtime != null) {
            runtime.close();
        }
        arena.close();
        assertEquals("", text(leaks), "resources the provider did not free");
        assertEquals("", text(violations), "calls the fake refused");
    }

    private Port port() {
        FabricRuntime r = runtime == null ? startRuntime() : runtime;
        assertTrue(r.status().available(), r.status().reason());
        return r.devices().get(0).port(1);
    }

    private MemoryRegion region(Port p, int size) {
        return p.device().registerMemory(arena.allocate(size, 4096));
    }

    private static UdQueuePair queuePair(Port p, CompletionQueue send, CompletionQueue recv, int depth) {
        return p.createUdQueuePair(new UdQueuePairConfig(send, recv, depth, depth, 0, QKEY, false));
    }

    private static int pollUntil(CompletionQueue cq, WorkCompletions wc, int want) {
        return FakeVerbsLibrary.pollUntil(cq, wc, want);
    }

    private static ipoib.api.verbs.VerbsProvider provider(FabricRuntime r) {
        return new ipoib.api.verbs.VerbsProvider() {
            @Override
            public String name() {
                return "fabric";
            }

            @Override
            public ipoib.api.verbs.ProviderStatus status() {
                return r.status();
            }

            @Override
            public List<Device> devices() {
                return r.devices();
            }
        };
    }

    // ---- discovery and queries ------------------------------------------------------------------

    @Test
    void theDeviceAndItsPortAreQueriedThroughTheExtendedContext() throws Throwable {
        FabricRuntime r = startRuntime();
        assertEquals("fake0 (1 port)", r.status().reason());
        Device d = r.devices().get(0);
        assertEquals("fake0", d.name());
        assertEquals(Guid.parse("0002:c903:0000:1234"), d.nodeGuid());
        assertEquals("1.2.3", ((FabricDevice) d).limits.firmware());
        PortAttributes a = d.port(1).attributes();
        assertEquals(new PortAttributes(PortState.ACTIVE, Lid.of(7), 0, Lid.of(1), 0, IbMtu.MTU_2048, IbMtu.MTU_4096,
                Rate.RATE_40_GBPS, Gid.DEFAULT_SUBNET_PREFIX, 2, 2), a);
        assertEquals(Gid.parse("fe80::2:c903:0:1235"), d.port(1).gid(0));
        assertEquals(PKeyTable.of(0xffff, 0x8001), d.port(1).pkeyTable());
        assertTrue(calls("query_port_ex") > 0);
        assertEquals(0, calls("query_port_compat"), "verbs_context.query_port is used when the context has it");
        VerbsException e = assertThrows(VerbsException.class, () -> d.port(1).gid(2));
        assertEquals("ibv_query_gid(fake0/1, index 2) failed; the GID table has 2 entries", e.getMessage());
        assertTrue(DeviceReport.devices(provider(r)).contains(
                "  port 1: ACTIVE  LID 0x0007  SM LID 0x0001  MTU 2048 (max 4096)  rate 40 Gb/s  link InfiniBand"));
        assertTrue(DeviceReport.port(provider(r), "fake0", 1).contains("GID[0] fe80::2:c903:0:1235"));
        assertEquals("invalid port 2 of fake0: allowed 1..1", assertThrows(IllegalArgumentException.class,
                () -> DeviceReport.port(provider(r), "fake0", 2)).getMessage());
        assertEquals("no device 'mlx5_0': allowed [fake0]", assertThrows(IllegalArgumentException.class,
                () -> DeviceReport.port(provider(r), "mlx5_0", 1)).getMessage());
    }

    @Test
    void aLegacyContextIsQueriedThroughTheExportedQueryPort() throws Throwable {
        setLegacy.invokeExact(1);
        PortAttributes a = port().attributes();
        assertEquals(Lid.of(7), a.lid());
        assertEquals(IbMtu.MTU_2048, a.activeMtu());
        assertEquals(0, calls("query_port_ex"));
        assertTrue(calls("query_port_compat") > 0);
    }

    @Test
    void theDeviceFilterLeavesOutDevicesAndSaysSo() {
        runtime = FabricRuntime.start(new FabricRuntime.Settings(library, "libibumad.so.3", Pattern.compile("mlx5_.*"),
                1000, 3, 1), new TestConfig.RecordingLog().fabricLog());
        assertEquals("no RDMA devices: none of [fake0] matches deviceFilter 'mlx5_.*'", runtime.status().reason());
    }

    // ---- the data path ------------------------------------------------------------------------

    @Test
    void aUnicastDatagramArrivesAfterTheGrhArea() {
        Port p = port();
        CompletionQueue sendCq = p.createCompletionQueue(16);
        CompletionQueue recvCq = p.createCompletionQueue(16);
        UdQueuePair a = queuePair(p, sendCq, recvCq, 8);
        UdQueuePair b = queuePair(p, sendCq, recvCq, 8);
        MemoryRegion mr = region(p, 8192);
        byte[] payload = "hello, infiniband".getBytes();
        MemorySegment.copy(payload, 0, mr.segment(), ValueLayout.JAVA_BYTE, 100, payload.length);
        assertTrue(b.postReceive(77, mr, 4096, 2048));
        AddressHandle ah = p.createAddressHandle(AddressVector.local(Lid.of(7), 3));
        assertTrue(a.postSend(55, mr, 100, payload.length, ah, b.qpn(), QKEY));

        WorkCompletions wc = new WorkCompletions(4);
        assertEquals(1, pollUntil(sendCq, wc, 1));
        assertEquals(55, wc.workRequestId(0));
        assertEquals(CompletionStatus.SUCCESS, wc.status(0));
        assertEquals(WorkCompletions.OPCODE_SEND, wc.opcode(0));
        assertEquals(a.qpn().value(), wc.queuePairNumber(0));
        assertEquals(1, pollUntil(recvCq, wc, 1));
        assertEquals(77, wc.workRequestId(0));
        assertEquals(CompletionStatus.SUCCESS, wc.status(0));
        assertEquals(WorkCompletions.OPCODE_RECEIVE, wc.opcode(0));
        assertEquals(payload.length + UdQueuePair.GRH_AREA_LENGTH, wc.byteLength(0));
        assertEquals(b.qpn().value(), wc.queuePairNumber(0));
        assertEquals(a.qpn().value(), wc.sourceQpn(0));
        assertEquals(7, wc.sourceLid(0));
        assertEquals(3, wc.serviceLevel(0));
        assertEquals(0, wc.pkeyIndex(0));
        assertFalse(wc.grhPresent(0));
        byte[] got = mr.segment().asSlice(4096 + 40, payload.length).toArray(ValueLayout.JAVA_BYTE);
        assertArrayEquals(payload, got);
    }

    @Test
    void aMulticastDatagramCarriesAGrhWithTheGroupAsDestination() {
        Port p = port();
        CompletionQueue cq = p.createCompletionQueue(16);
        UdQueuePair a = queuePair(p, cq, cq, 8);
        UdQueuePair b = queuePair(p, cq, cq, 8);
        MemoryRegion mr = region(p, 8192);
        Gid mgid = Gid.parse("ff12:401b:ffff::ffff:ffff");
        b.attachMulticast(mgid, Lid.of(0xc000));
        assertTrue(b.postReceive(1, mr, 4096, 2048));
        assertTrue(b.postReceive(2, mr, 6144, 2048));
        AddressHandle group = p.createAddressHandle(new AddressVector(Lid.of(0xc000), 0, Rate.RATE_10_GBPS, true, mgid,
                0x12345, 1, 7, 0));
        assertTrue(a.postSend(9, mr, 0, 64, group, Qpn.MULTICAST, QKEY));
        WorkCompletions wc = new WorkCompletions(4);
        assertEquals(2, pollUntil(cq, wc, 2));
        int rx = wc.opcode(0) == WorkCompletions.OPCODE_RECEIVE ? 0 : 1;
        assertEquals(1, wc.workRequestId(rx));
        assertTrue(wc.grhPresent(rx));
        assertEquals(64 + 40, wc.byteLength(rx));
        MemorySegment grh = mr.segment().asSlice(4096, 40);
        assertEquals(6, Byte.toUnsignedInt(grh.get(ValueLayout.JAVA_BYTE, 0)) >> 4, "IPVer");
        assertEquals(0x1b, grh.get(ValueLayout.JAVA_BYTE, 6), "NxtHdr");
        assertEquals(Gid.parse("fe80::2:c903:0:1235"), Gid.fromBytes(grh.asSlice(8, 16).toArray(ValueLayout.JAVA_BYTE)));
        assertEquals(mgid, Gid.fromBytes(grh.asSlice(24, 16).toArray(ValueLayout.JAVA_BYTE)));

        b.detachMulticast(mgid, Lid.of(0xc000));
        assertTrue(a.postSend(10, mr, 0, 64, group, Qpn.MULTICAST, QKEY));
        assertEquals(1, pollUntil(cq, wc, 1), "only the send completes: b left the group");
        assertEquals(WorkCompletions.OPCODE_SEND, wc.opcode(0));
        VerbsException e = assertThrows(VerbsException.class, () -> b.detachMulticast(mgid, Lid.of(0xc000)));
        assertTrue(e.getMessage().startsWith("ibv_detach_mcast(ff12:401b:ffff::ffff:ffff, 0xc000) failed: errno 22"),
                e.getMessage());
        assertThrows(VerbsException.class, () -> b.attachMulticast(Gid.parse("fe80::1"), Lid.of(0xc000)));
    }

    @Test
    void aDatagramWithAnotherQKeyIsDroppedAndTooLongOneIsALengthError() {
        Port p = port();
        CompletionQueue cq = p.createCompletionQueue(16);
        UdQueuePair a = queuePair(p, cq, cq, 4);
        UdQueuePair b = queuePair(p, cq, cq, 4);
        MemoryRegion mr = region(p, 8192);
        AddressHandle ah = p.createAddressHandle(AddressVector.local(Lid.of(7), 0));
        assertTrue(b.postReceive(1, mr, 4096, 100));
        assertTrue(a.postSend(2, mr, 0, 10, ah, b.qpn(), QKey.of(0x1234)));
        WorkCompletions wc = new WorkCompletions(4);
        assertEquals(1, pollUntil(cq, wc, 1));
        assertEquals(WorkCompletions.OPCODE_SEND, wc.opcode(0));
        assertTrue(a.postSend(3, mr, 0, 61, ah, b.qpn(), QKEY));
        assertEquals(2, pollUntil(cq, wc, 2));
        int rx = wc.opcode(0) == WorkCompletions.OPCODE_RECEIVE ? 0 : 1;
        assertEquals(CompletionStatus.LOCAL_LENGTH_ERROR, wc.status(rx), "61 + 40 octets into a 100-octet buffer");
        assertEquals(1, wc.workRequestId(rx));
    }

    @Test
    void fullQueuesRefuseWorkUntilCompletionsArePolled() {
        Port p = port();
        CompletionQueue cq = p.createCompletionQueue(16);
        UdQueuePair a = p.createUdQueuePair(new UdQueuePairConfig(cq, cq, 2, 1, 0, QKEY, false));
        MemoryRegion mr = region(p, 8192);
        AddressHandle ah = p.createAddressHandle(AddressVector.local(Lid.of(7), 0));
        assertTrue(a.postReceive(1, mr, 4096, 2048));
        assertFalse(a.postReceive(2, mr, 6144, 2048), "receive queue depth 1");
        assertTrue(a.postSend(3, mr, 0, 8, ah, Qpn.of(0x7777), QKEY));
        assertTrue(a.postSend(4, mr, 0, 8, ah, Qpn.of(0x7777), QKEY));
        assertFalse(a.postSend(5, mr, 0, 8, ah, Qpn.of(0x7777), QKEY), "send queue depth 2");
        WorkCompletions wc = new WorkCompletions(8);
        assertEquals(2, pollUntil(cq, wc, 2));
        assertEquals(3, wc.workRequestId(0));
        assertEquals(4, wc.workRequestId(1));
        assertTrue(a.postSend(5, mr, 0, 8, ah, Qpn.of(0x7777), QKEY));
    }

    @Test
    void misuseIsRefusedWithTheReason() {
        Port p = port();
        CompletionQueue cq = p.createCompletionQueue(16);
        UdQueuePair a = queuePair(p, cq, cq, 4);
        MemoryRegion mr = region(p, 4096);
        AddressHandle ah = p.createAddressHandle(AddressVector.local(Lid.of(7), 0));
        assertEquals("post receive: buffer of 39 octets is shorter than the 40-octet GRH area",
                assertThrows(VerbsException.class, () -> a.postReceive(1, mr, 0, 39)).getMessage());
        assertEquals("post send: buffer [4000, +100) lies outside the region of 4096 octets",
                assertThrows(VerbsException.class, () -> a.postSend(1, mr, 4000, 100, ah, Qpn.of(1), QKEY))
                        .getMessage());
        assertEquals("post send: Q_Key 0x80010000 is controlled (high bit set); only a privileged queue pair may send it",
                assertThrows(VerbsException.class, () -> a.postSend(1, mr, 0, 10, ah, Qpn.of(1), QKey.GSI))
                        .getMessage());
        assertTrue(assertThrows(VerbsException.class, () -> p.createUdQueuePair(new UdQueuePairConfig(cq, cq, 4, 4, 5,
                QKEY, false))).getMessage().startsWith("create UD QP: P_Key index 5 is not a valid entry of port fake0/1"));
        assertEquals("create UD QP: Q_Key 0x80010000 is controlled (high bit set); only a privileged queue pair may "
                + "use it", assertThrows(VerbsException.class, () -> p.createUdQueuePair(new UdQueuePairConfig(cq, cq,
                4, 4, 0, QKey.GSI, false))).getMessage());
        assertEquals("create UD QP: queue depths 512/512 exceed the device's max_qp_wr 256", assertThrows(
                VerbsException.class, () -> queuePair(p, cq, cq, 512)).getMessage());
        assertEquals("create completion queue: capacity 2048 exceeds the device's max_cqe 1024",
                assertThrows(VerbsException.class, () -> p.createCompletionQueue(2048)).getMessage());
        assertEquals("close completion queue: queue pairs of device fake0 still use it; close them first",
                assertThrows(VerbsException.class, cq::close).getMessage());
        assertThrows(VerbsException.class, () -> p.device().registerMemory(MemorySegment.ofArray(new byte[64])),
                "heap memory cannot be registered");
        a.close();
        assertEquals("post send: queue pair " + a.qpn() + " is closed",
                assertThrows(VerbsException.class, () -> a.postSend(1, mr, 0, 10, ah, Qpn.of(1), QKEY)).getMessage());
        mr.close();
        mr.close();
        ah.close();
        cq.close();
    }

    @Test
    void closingAQueuePairFlushesItsOutstandingReceivesInPostOrder() {
        Port p = port();
        CompletionQueue cq = p.createCompletionQueue(16);
        UdQueuePair a = queuePair(p, cq, cq, 8);
        MemoryRegion mr = region(p, 16384);
        for (int i = 0; i < 3; i++) {
            assertTrue(a.postReceive(100 + i, mr, 4096L * i, 2048));
        }
        a.close();
        WorkCompletions wc = new WorkCompletions(8);
        assertEquals(3, cq.poll(wc));
        for (int i = 0; i < 3; i++) {
            assertEquals(100 + i, wc.workRequestId(i));
            assertEquals(CompletionStatus.WORK_REQUEST_FLUSH_ERROR, wc.status(i));
            assertEquals(WorkCompletions.OPCODE_RECEIVE, wc.opcode(i));
            assertEquals(a.qpn().value(), wc.queuePairNumber(i));
        }
        assertEquals(0, cq.poll(wc));
    }

    @Test
    void awaitReturnsOnACompletionOnWakeupAndOnTimeout() throws Throwable {
        Port p = port();
        CompletionQueue cq = p.createCompletionQueue(16);
        UdQueuePair a = queuePair(p, cq, cq, 4);
        MemoryRegion mr = region(p, 4096);
        AddressHandle ah = p.createAddressHandle(AddressVector.local(Lid.of(7), 0));
        assertFalse(cq.await(30, TimeUnit.MILLISECONDS), "nothing to wait for");

        CompletableFuture<Boolean> waiting = CompletableFuture.supplyAsync(() -> {
            try {
                return cq.await(5, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });
        // The waiter may arm before or after this send: either way await sees the completion.
        assertTrue(a.postSend(1, mr, 0, 8, ah, Qpn.of(0x7777), QKEY));
        assertTrue(waiting.get(5, TimeUnit.SECONDS));
        WorkCompletions wc = new WorkCompletions(4);
        assertEquals(1, pollUntil(cq, wc, 1));

        CompletableFuture<Boolean> woken = CompletableFuture.supplyAsync(() -> {
            try {
                return cq.await(5, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (!woken.isDone() && System.nanoTime() < deadline) {
            cq.wakeup();
            try {
                woken.get(20, TimeUnit.MILLISECONDS);
            } catch (java.util.concurrent.TimeoutException notYet) {
                // the waiter had not started yet: wake it again
            }
        }
        assertFalse(woken.get(), "woken up, no completion");
        assertTrue(calls("cq_event_acks") >= 0);
    }

    @Test
    void asyncEventsReachThePortsListeners() throws Throwable {
        Port p = port();
        LinkedBlockingQueue<PortEvent> events = new LinkedBlockingQueue<>();
        AutoCloseable subscription = p.addEventListener(events::add);
        p.addEventListener(e -> {
            throw new IllegalStateException("a failing listener does not stop the others");
        });
        int[] types = {Consts.IBV_EVENT_LID_CHANGE, Consts.IBV_EVENT_PORT_ERR, Consts.IBV_EVENT_PORT_ACTIVE,
                Consts.IBV_EVENT_PKEY_CHANGE, Consts.IBV_EVENT_SM_CHANGE, Consts.IBV_EVENT_CLIENT_REREGISTER,
                Consts.IBV_EVENT_GID_CHANGE};
        for (int t : types) {
            assertEquals(0, (int) raiseAsync.invokeExact(t, 1));
        }
        List<PortEvent.Type> expected = List.of(PortEvent.Type.LID_CHANGE, PortEvent.Type.PORT_ERROR,
                PortEvent.Type.PORT_ACTIVE, PortEvent.Type.PKEY_CHANGE, PortEvent.Type.SM_CHANGE,
                PortEvent.Type.CLIENT_REREGISTER, PortEvent.Type.GID_CHANGE);
        for (PortEvent.Type type : expected) {
            PortEvent e = events.poll(5, TimeUnit.SECONDS);
            assertEquals(new PortEvent(p, type), e);
        }
        subscription.close();
        assertEquals(0, (int) raiseAsync.invokeExact(Consts.IBV_EVENT_DEVICE_FATAL, 1));
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (!((FabricDevice) p.device()).isFatal() && System.nanoTime() < deadline) {
            Thread.onSpinWait();
        }
        assertTrue(((FabricDevice) p.device()).isFatal());
        assertTrue(events.isEmpty(), "the closed subscription got " + events);
        assertEquals("create completion queue: device fake0 reported a fatal error",
                assertThrows(VerbsException.class, () -> p.createCompletionQueue(4)).getMessage());
        assertTrue(calls("async_acks") >= types.length + 1, "every event acknowledged");
    }

    @Test
    void theDataPathAllocatesNothing() {
        Port p = port();
        CompletionQueue cq = p.createCompletionQueue(64);
        UdQueuePair a = queuePair(p, cq, cq, 16);
        UdQueuePair b = queuePair(p, cq, cq, 16);
        MemoryRegion mr = region(p, 8192);
        AddressHandle ah = p.createAddressHandle(AddressVector.local(Lid.of(7), 0));
        Qpn to = b.qpn();
        WorkCompletions wc = new WorkCompletions(16);
        long measured = FakeVerbsLibrary.allocatedWhenWarm("data path: 20000 send/receive/poll rounds", () -> {
            for (int i = 0; i < 20_000; i++) {
                b.postReceive(i, mr, 4096, 2048);
                a.postSend(i, mr, 0, 256, ah, to, QKEY);
                int n = 0;
                while (n < 2) {
                    n += cq.poll(wc);
                }
            }
        });
        assertTrue(measured < 20_000, "20000 send/receive/poll rounds allocated " + measured + " bytes when warm");
    }

    @Test
    void aListOfReceivesAndAListOfSendsGoToTheDriverInOneCallEach() throws Throwable {
        Port p = port();
        CompletionQueue sendCq = p.createCompletionQueue(64);
        CompletionQueue recvCq = p.createCompletionQueue(64);
        UdQueuePair a = queuePair(p, sendCq, recvCq, 16);
        UdQueuePair b = queuePair(p, sendCq, recvCq, 16);
        MemoryRegion mr = region(p, 65536);
        AddressHandle ah = p.createAddressHandle(AddressVector.local(Lid.of(7), 2));
        ReceiveWorkRequests receives = new ReceiveWorkRequests(32);
        for (int i = 0; i < 8; i++) {
            receives.add(100 + i, mr, 32768 + i * 2048L, 2048);
        }
        int recvCalls = calls("post_recv");
        assertEquals(8, b.postReceive(receives));
        assertEquals(recvCalls + 1, calls("post_recv"), "eight receives, one call of post_recv");
        SendWorkRequests sends = new SendWorkRequests(32);
        for (int i = 0; i < 8; i++) {
            mr.segment().set(ValueLayout.JAVA_BYTE, i * 64L, (byte) (0x40 + i));
            sends.add(200 + i, mr, i * 64L, 60 + i, ah, b.qpn(), QKEY);
        }
        int sendCalls = calls("post_send");
        int sendWrs = calls("post_send_wrs");
        assertEquals(8, a.postSend(sends));
        assertEquals(sendCalls + 1, calls("post_send"), "eight datagrams, one call of post_send (one doorbell)");
        assertEquals(sendWrs + 8, calls("post_send_wrs"), "the chain was cut after the eighth request");

        WorkCompletions wc = new WorkCompletions(16);
        assertEquals(8, pollUntil(sendCq, wc, 8));
        for (int i = 0; i < 8; i++) {
            assertEquals(200 + i, wc.workRequestId(i), "send completions in post order");
            assertEquals(CompletionStatus.SUCCESS, wc.status(i));
        }
        assertEquals(8, pollUntil(recvCq, wc, 8));
        for (int i = 0; i < 8; i++) {
            assertEquals(100 + i, wc.workRequestId(i), "each datagram in the next buffer of the list");
            assertEquals(60 + i + UdQueuePair.GRH_AREA_LENGTH, wc.byteLength(i));
            assertEquals(2, wc.serviceLevel(i));
            assertEquals((byte) (0x40 + i), mr.segment().get(ValueLayout.JAVA_BYTE, 32768 + i * 2048L + 40));
        }

        // The chain is whole again after the cut: a longer list goes in one call too.
        receives.clear();
        for (int i = 0; i < 16; i++) {
            receives.add(300 + i, mr, 32768 + (i % 8) * 2048L, 2048);
        }
        assertEquals(16, b.postReceive(receives), "the receive queue (16) takes sixteen");
        assertEquals(recvCalls + 2, calls("post_recv"));
        assertEquals(0, b.postReceive(receives), "a full queue takes none, without calling the driver");
        assertEquals(recvCalls + 2, calls("post_recv"));
    }

    @Test
    void aListTakesWhatTheQueueHoldsAndStopsAtARefusedRequest() throws Throwable {
        Port p = port();
        CompletionQueue cq = p.createCompletionQueue(64);
        UdQueuePair a = queuePair(p, cq, cq, 4);
        MemoryRegion mr = region(p, 8192);
        MemoryRegion foreign = new MemoryRegion() {
            @Override
            public MemorySegment segment() {
                return mr.segment();
            }

            @Override
            public int localKey() {
                return 1;
            }

            @Override
            public void close() {
            }
        };
        AddressHandle ah = p.createAddressHandle(AddressVector.local(Lid.of(7), 0));
        SendWorkRequests sends = new SendWorkRequests(8);
        for (int i = 0; i < 6; i++) {
            sends.add(i, mr, 0, 8, ah, Qpn.of(0x7777), QKEY);
        }
        assertEquals(4, a.postSend(sends), "send queue depth 4");
        sends.removeFirst(4);
        assertEquals(2, sends.count());
        assertEquals(4, sends.workRequestId(0), "what was not posted stays, in order");
        assertEquals(0, a.postSend(sends), "still full");
        WorkCompletions wc = new WorkCompletions(8);
        assertEquals(4, pollUntil(cq, wc, 4));
        sends.add(6, foreign, 0, 8, ah, Qpn.of(0x7777), QKEY);
        assertEquals(2, a.postSend(sends), "the requests before the refused one are posted");
        sends.removeFirst(2);
        VerbsException e = assertThrows(VerbsException.class, () -> a.postSend(sends));
        assertEquals("post send: the memory region was not registered with device fake0", e.getMessage());
        assertEquals(2, pollUntil(cq, wc, 2));
        assertEquals(4, wc.workRequestId(0));
        assertEquals(5, wc.workRequestId(1));

        ReceiveWorkRequests receives = new ReceiveWorkRequests(5);
        receives.add(1, mr, 4096, 39);
        e = assertThrows(VerbsException.class, () -> a.postReceive(receives));
        assertEquals("post receive: buffer of 39 octets is shorter than the 40-octet GRH area", e.getMessage());
        // Nothing was posted and no slot was lost: the queue still takes its four.
        receives.clear();
        for (int i = 0; i < 5; i++) {
            receives.add(i, mr, 4096, 2048);
        }
        assertEquals(4, a.postReceive(receives));
    }

    @Test
    void postingListsAllocatesNothing() {
        Port p = port();
        CompletionQueue cq = p.createCompletionQueue(256);
        UdQueuePair a = queuePair(p, cq, cq, 64);
        UdQueuePair b = queuePair(p, cq, cq, 64);
        MemoryRegion mr = region(p, 65536);
        AddressHandle ah = p.createAddressHandle(AddressVector.local(Lid.of(7), 0));
        Qpn to = b.qpn();
        ReceiveWorkRequests receives = new ReceiveWorkRequests(16);
        SendWorkRequests sends = new SendWorkRequests(16);
        WorkCompletions wc = new WorkCompletions(64);
        long measured = FakeVerbsLibrary.allocatedWhenWarm("post lists: 5000 rounds of 16 receives and 16 sends", () -> {
            for (int i = 0; i < 5_000; i++) {
                receives.clear();
                sends.clear();
                for (int k = 0; k < 16; k++) {
                    receives.add(k, mr, 32768 + k * 2048L, 2048);
                    sends.add(k, mr, k * 256L, 256, ah, to, QKEY);
                }
                assertEquals(16, b.postReceive(receives));
                assertEquals(16, a.postSend(sends));
                int n = 0;
                while (n < 32) {
                    n += cq.poll(wc);
                }
            }
        });
        assertTrue(measured < 20_000, "5000 rounds of two 16-entry lists allocated " + measured + " bytes");
    }

    @Test
    void closingTheProviderReleasesWhatTheUserLeftOpenInDependencyOrder() {
        Port p = port();
        CompletionQueue sendCq = p.createCompletionQueue(16);
        CompletionQueue recvCq = p.createCompletionQueue(16);
        UdQueuePair a = queuePair(p, sendCq, recvCq, 4);
        region(p, 4096);
        p.createAddressHandle(AddressVector.local(Lid.of(7), 0));
        a.attachMulticast(Gid.parse("ff12:401b:ffff::1"), Lid.of(0xc001));
        runtime.close();
        runtime.close();
        assertFalse(runtime.status().available());
        assertTrue(runtime.devices().isEmpty());
        // closeAndCheck: the fake reports no live resource and no out-of-order destroy.
    }
}
