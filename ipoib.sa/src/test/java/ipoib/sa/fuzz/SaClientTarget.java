package ipoib.sa.fuzz;

import ipoib.api.Gid;
import ipoib.api.JoinState;
import ipoib.api.Mgid;
import ipoib.api.PKey;
import ipoib.api.sa.GroupTrap;
import ipoib.api.sa.MadTransport;
import ipoib.api.sa.SaException;
import ipoib.codec.DecodeException;
import ipoib.codec.Wire;
import ipoib.codec.mad.InformInfo;
import ipoib.codec.mad.MadMethod;
import ipoib.codec.mad.SaMad;
import ipoib.runtime.ManualControlLoop;
import ipoib.sa.SaClient;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.Consumer;

/**
 * The SA client's receive path under hostile MADs: a client with a trap subscription and five
 * requests in flight (PathRecord, join, create-less group lookup, group table, leave) receives
 * the input cut into MADs. The last octet of each MAD's transaction ID chooses whether the ID is
 * replaced by the ID of a pending request (0..4: PathRecord, join, group, group table, leave), so
 * that the fuzzer reaches answer decoding, which it cannot by guessing 64-bit IDs. The receiver must never throw, and every request that
 * ends must end with a result or an {@link SaException}.
 */
final class SaClientTarget {
    private SaClientTarget() {}

    /** Records what the client sends; answers its InformInfo Sets (the subscription) at once. */
    private static final class Transport implements MadTransport {
        final List<Long> tids = new ArrayList<>();
        Consumer<ByteBuffer> receiver;

        @Override
        public void send(ByteBuffer mad) {
            byte[] bytes = new byte[MAD_LENGTH];
            mad.duplicate().get(bytes);
            MemorySegment s = MemorySegment.ofArray(bytes);
            try {
                SaMad request = SaMad.decode(s, 0);
                int method = request.header().method();
                if (method == MadMethod.REPORT_RESP) {
                    return;
                }
                tids.add(request.header().transactionId());
                if (method == MadMethod.SET && request.sa() != null && request.header().attributeId() == InformInfo.ATTRIBUTE_ID) {
                    byte[] answer = bytes.clone();
                    request.response(0).encode(MemorySegment.ofArray(answer), 0);
                    receiver.accept(ByteBuffer.wrap(answer));
                }
            } catch (DecodeException e) {
                throw new AssertionError("the client sent a MAD that does not decode", e);
            }
        }

        @Override
        public void setReceiver(Consumer<ByteBuffer> receiver) {
            this.receiver = receiver;
        }
    }

    /** Whether a request ended (an answer matched it: the input reached answer decoding). */
    static boolean receive(byte[] input) {
        Transport transport = new Transport();
        // The client's timers on a manual loop that the input never moves: nothing times out.
        try (ManualControlLoop timers = new ManualControlLoop();
             SaClient client = new SaClient(transport, timers, 60_000, 1, 1)) {
            List<GroupTrap> traps = new ArrayList<>();
            client.subscribe(GroupTrap.Type.CREATED, null, traps::add);
            Gid self = Gid.parse("fe80::2:c903:0:1");
            Mgid group = Mgid.parse("ff12:401b:ffff::e000:1");
            List<CompletableFuture<?>> requests = List.of(
                    client.pathRecord(self, Gid.parse("fe80::2:c903:0:2"), new PKey(0xffff)).toCompletableFuture(),
                    client.join(group, self, JoinState.FULL_MEMBER).toCompletableFuture(),
                    client.group(group).toCompletableFuture(),
                    client.groups().toCompletableFuture(),
                    client.leave(group, self, JoinState.FULL_MEMBER).toCompletableFuture());
            List<Long> pending = new ArrayList<>(transport.tids.subList(Math.max(0, transport.tids.size() - 5),
                    transport.tids.size()));
            for (int at = 0; at < input.length; at += MadTransport.MAD_LENGTH) {
                byte[] mad = java.util.Arrays.copyOfRange(input, at, Math.min(input.length, at + MadTransport.MAD_LENGTH));
                int choice = mad.length >= 16 ? (mad[15] & 0xFF) % 8 : -1;
                if (choice >= 0 && choice < pending.size()) {
                    MemorySegment.ofArray(mad).set(Wire.U64, 8, pending.get(choice));
                }
                // Must not throw: a receiver that throws would go into the transport's thread.
                transport.receiver.accept(ByteBuffer.wrap(mad));
            }
            for (CompletableFuture<?> f : requests) {
                if (f.isCompletedExceptionally()) {
                    try {
                        f.join();
                    } catch (CompletionException e) {
                        if (!(e.getCause() instanceof SaException)) {
                            throw new AssertionError("a request failed with " + e.getCause(), e.getCause());
                        }
                    }
                }
            }
            client.statistics();
            return requests.stream().anyMatch(CompletableFuture::isDone);
        }
    }
}
