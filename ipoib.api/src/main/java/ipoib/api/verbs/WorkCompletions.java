package ipoib.api.verbs;

/**
 * A reusable batch of work completions, filled by {@link CompletionQueue#poll}. It is laid out as
 * parallel arrays so that polling allocates nothing. Not thread-safe: one poller owns a batch.
 */
public final class WorkCompletions {

    /** Opcode of a send completion. */
    public static final int OPCODE_SEND = 0;
    /** Opcode of a receive completion. */
    public static final int OPCODE_RECEIVE = 1;

    private final long[] workRequestId;
    private final CompletionStatus[] status;
    private final int[] opcode;
    private final int[] byteLength;
    private final int[] sourceQpn;
    private final int[] sourceLid;
    private final int[] serviceLevel;
    private final int[] pkeyIndex;
    private final boolean[] grhPresent;
    private final int[] queuePairNumber;
    private int count;

    /**
     * @param capacity the most completions one poll returns, 1..65536
     */
    public WorkCompletions(int capacity) {
        if (capacity < 1 || capacity > 65536) {
            throw new IllegalArgumentException("invalid completion batch capacity '" + capacity + "': allowed 1..65536");
        }
        workRequestId = new long[capacity];
        status = new CompletionStatus[capacity];
        opcode = new int[capacity];
        byteLength = new int[capacity];
        sourceQpn = new int[capacity];
        sourceLid = new int[capacity];
        serviceLevel = new int[capacity];
        pkeyIndex = new int[capacity];
        grhPresent = new boolean[capacity];
        queuePairNumber = new int[capacity];
    }

    public int capacity() {
        return workRequestId.length;
    }

    /** Completions in the batch after the last poll. */
    public int count() {
        return count;
    }

    /** Empties the batch; providers call it at the start of a poll. */
    public void clear() {
        count = 0;
    }

    /** Whether another completion fits. */
    public boolean hasRoom() {
        return count < workRequestId.length;
    }

    /**
     * Appends a completion (for providers).
     *
     * @throws IllegalStateException when the batch is full
     */
    public void add(long wrId, CompletionStatus st, int op, int length, int localQpn, int srcQpn, int srcLid,
                    int sl, int pkeyIdx, boolean grh) {
        if (!hasRoom()) {
            throw new IllegalStateException("completion batch full (" + capacity() + ")");
        }
        int i = count++;
        workRequestId[i] = wrId;
        status[i] = st;
        opcode[i] = op;
        byteLength[i] = length;
        queuePairNumber[i] = localQpn;
        sourceQpn[i] = srcQpn;
        sourceLid[i] = srcLid;
        serviceLevel[i] = sl;
        pkeyIndex[i] = pkeyIdx;
        grhPresent[i] = grh;
    }

    public long workRequestId(int i) { return workRequestId[i]; }

    public CompletionStatus status(int i) { return status[i]; }

    /** {@link #OPCODE_SEND} or {@link #OPCODE_RECEIVE}. */
    public int opcode(int i) { return opcode[i]; }

    /** For receives: octets placed in the buffer, including the 40-octet GRH area. */
    public int byteLength(int i) { return byteLength[i]; }

    /** The local queue pair the completion belongs to. */
    public int queuePairNumber(int i) { return queuePairNumber[i]; }

    /** For receives: the sender's QPN. */
    public int sourceQpn(int i) { return sourceQpn[i]; }

    /** For receives: the sender's LID. */
    public int sourceLid(int i) { return sourceLid[i]; }

    /** For receives: the service level the datagram arrived on. */
    public int serviceLevel(int i) { return serviceLevel[i]; }

    /** For receives: the P_Key index of the datagram. */
    public int pkeyIndex(int i) { return pkeyIndex[i]; }

    /** For receives: whether the GRH area holds a GRH. */
    public boolean grhPresent(int i) { return grhPresent[i]; }
}
