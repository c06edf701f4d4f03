package ipoib.api.verbs;

/** An address handle (IBA 11.2.2): a destination prepared for {@link UdQueuePair#postSend}. */
public interface AddressHandle extends AutoCloseable {

    /** The vector the handle was created from. */
    AddressVector vector();

    /** Destroys the handle; sends already posted with it are unaffected. */
    @Override
    void close();
}
