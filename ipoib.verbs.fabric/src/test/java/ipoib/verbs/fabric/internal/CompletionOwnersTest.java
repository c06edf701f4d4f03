package ipoib.verbs.fabric.internal;

import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** The completion queue's owner lookup by queue pair number, against a plain list. */
class CompletionOwnersTest {

    private record Owner(int queuePairNumber) implements CompletionOwner {
        @Override
        public boolean completed(boolean send, int slot, long[] id) {
            return false;
        }
    }

    @Test
    void ownersAreFoundByNumberWhateverTheOrderTheyCameAndWent() {
        Random random = new Random(5);
        List<Owner> live = new ArrayList<>();
        CompletionOwners owners = CompletionOwners.EMPTY;
        assertTrue(owners.isEmpty());
        for (int round = 0; round < 2000; round++) {
            if (live.isEmpty() || random.nextInt(3) > 0) {
                Owner o = new Owner(random.nextInt(1 << 24));
                live.removeIf(x -> x.queuePairNumber() == o.queuePairNumber());
                live.add(o);
                owners = owners.with(o);
            } else {
                Owner o = live.remove(random.nextInt(live.size()));
                owners = owners.without(o);
                assertNull(owners.find(o.queuePairNumber()), "gone: " + o);
            }
            for (Owner o : live) {
                assertSame(o, owners.find(o.queuePairNumber()));
            }
        }
        Collections.shuffle(live, random);
        for (Owner o : live) {
            owners = owners.without(o);
        }
        assertTrue(owners.isEmpty());
        Owner a = new Owner(7);
        assertSame(owners, owners.without(a), "removing what is not there changes nothing");
        assertSame(owners.with(a).without(new Owner(7)).find(7), a, "only the attached owner itself is removed");
    }
}
