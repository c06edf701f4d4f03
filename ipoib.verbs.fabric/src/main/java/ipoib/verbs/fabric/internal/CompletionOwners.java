package ipoib.verbs.fabric.internal;

import java.util.Arrays;

/**
 * The queue pairs of one completion queue, sorted by queue pair number: an immutable snapshot
 * that attaching or detaching replaces (copy on write), so that finding the owner of a
 * completion is a binary search that neither locks nor allocates — a connected-mode interface
 * has one RC queue pair per connection on the same CQ.
 */
final class CompletionOwners {
    static final CompletionOwners EMPTY = new CompletionOwners(new int[0], new CompletionOwner[0]);

    private final int[] qpns;
    private final CompletionOwner[] owners;

    private CompletionOwners(int[] qpns, CompletionOwner[] owners) {
        this.qpns = qpns;
        this.owners = owners;
    }

    /** The owner of {@code qpn}, or null. */
    CompletionOwner find(int qpn) {
        int i = Arrays.binarySearch(qpns, qpn);
        return i >= 0 ? owners[i] : null;
    }

    boolean isEmpty() {
        return qpns.length == 0;
    }

    /** A snapshot with {@code owner} added (replacing one of the same number). */
    CompletionOwners with(CompletionOwner owner) {
        int qpn = owner.queuePairNumber();
        int i = Arrays.binarySearch(qpns, qpn);
        if (i >= 0) {
            CompletionOwner[] o = owners.clone();
            o[i] = owner;
            return new CompletionOwners(qpns, o);
        }
        int at = -i - 1;
        int[] q = new int[qpns.length + 1];
        CompletionOwner[] o = new CompletionOwner[owners.length + 1];
        System.arraycopy(qpns, 0, q, 0, at);
        System.arraycopy(owners, 0, o, 0, at);
        q[at] = qpn;
        o[at] = owner;
        System.arraycopy(qpns, at, q, at + 1, qpns.length - at);
        System.arraycopy(owners, at, o, at + 1, owners.length - at);
        return new CompletionOwners(q, o);
    }

    /** A snapshot without {@code owner} (unchanged when it is not there). */
    CompletionOwners without(CompletionOwner owner) {
        int i = Arrays.binarySearch(qpns, owner.queuePairNumber());
        if (i < 0 || owners[i] != owner) {
            return this;
        }
        int[] q = new int[qpns.length - 1];
        CompletionOwner[] o = new CompletionOwner[owners.length - 1];
        System.arraycopy(qpns, 0, q, 0, i);
        System.arraycopy(owners, 0, o, 0, i);
        System.arraycopy(qpns, i + 1, q, i, qpns.length - i - 1);
        System.arraycopy(owners, i + 1, o, i, owners.length - i - 1);
        return new CompletionOwners(q, o);
    }
}
