package ipoib.api.verbs;

/** Queue pair states (IBA 10.3.1). A UD queue pair is usable in RTS. */
public enum QueuePairState {
    RESET, INIT, RTR, RTS, SQD, SQE, ERROR
}
