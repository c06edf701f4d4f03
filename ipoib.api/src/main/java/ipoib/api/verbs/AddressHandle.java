package ipoib.api.verbs;

import org.osgi.annotation.versioning.ProviderType;
/** An address handle (IBA 11.2.2): a destination prepared for {@link UdQueuePair#postSend}. */
@ProviderType
public interface AddressHandle extends AutoCloseable {

    /** The vector the handle was created from. */
    AddressVector vector();

    /** Destroys the handle; sends already posted with it are unaffected. */
    @Override
    void close();
}
