package ipoib.verbs.loopback.fabric;

/**
 * The lock a completion queue's producer holds while it claims, fills and wakes: a UD queue
 * pair's receive queue lock for its receive completions, its send lock for its send
 * completions. A queue with one such producer claims without an atomic instruction
 * ({@link LoopCompletionQueue#bindProducer}).
 */
interface ProducerLock {
    void lock();

    void unlock();
}
