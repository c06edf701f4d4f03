package ipoib.satest;

import ipoib.api.Gid;
import ipoib.api.Lid;
import ipoib.api.McMemberRecord;
import ipoib.api.sa.SubnetAdministrator;
import java.util.List;
import java.util.concurrent.CompletionStage;

/** One end node of a test subnet: its port and the SA client running on it. */
public interface SaHost {
    /** A name for messages (the node description, {@code loop0}, ...). */
    String name();

    /** The port GID (GID index 0). */
    Gid portGid();

    /** The port's LID. */
    Lid lid();

    /** The SA client of the port (trusted: SM_Key {@link SubnetAdministratorContract#TRUSTED_SM_KEY}). */
    SubnetAdministrator sa();

    /** The same client sending another SM_Key (0: untrusted, as Linux). */
    SubnetAdministrator sa(long smKey);

    /**
     * A trusted MCMemberRecord GetTable with the components {@code mask} (SaMcMemberRecord's
     * CM_* bits) taken from {@code query}.
     */
    CompletionStage<List<McMemberRecord>> memberTable(McMemberRecord query, long mask);

    /** PathRecord Get with an MTU selector: 0 greater than, 1 less than, 2 exactly, 3 largest. */
    CompletionStage<ipoib.api.PathRecord> pathRecord(Gid source, Gid destination, ipoib.api.PKey pkey, int mtuSelector,
                                                     ipoib.api.IbMtu mtu);
}
