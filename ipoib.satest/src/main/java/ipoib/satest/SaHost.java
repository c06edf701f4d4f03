package ipoib.satest;

import ipoib.api.Gid;
import ipoib.api.Lid;
import ipoib.api.McMemberRecord;
import ipoib.api.sa.SubnetAdministrator;
import ipoib.codec.mad.SaPathRecord;
import ipoib.codec.mad.Selector;
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
    default CompletionStage<ipoib.api.PathRecord> pathRecord(Gid source, Gid destination, ipoib.api.PKey pkey,
                                                             int mtuSelector, ipoib.api.IbMtu mtu) {
        SaPathRecord query = new SaPathRecord(0, destination, source, 0, 0, false, 0, 0, 0, true, 1, pkey.value(), 0, 0,
                Selector.fromCode(mtuSelector), mtu.code(), Selector.GREATER_THAN, 0, Selector.GREATER_THAN, 0, 0);
        return pathRecords(false, query, SaPathRecord.QUERY_COMPONENTS | SaPathRecord.CM_MTU_SELECTOR
                | SaPathRecord.CM_MTU).thenApply(list -> {
                    try {
                        return list.get(0).toApi();
                    } catch (ipoib.codec.DecodeException e) {
                        throw new java.util.concurrent.CompletionException(e);
                    }
                });
    }

    /**
     * A trusted PathRecord Get ({@code table} false) or GetTable with the components {@code mask}
     * (SaPathRecord's CM_* bits) taken from {@code query}: the records as the SA wrote them.
     */
    CompletionStage<List<SaPathRecord>> pathRecords(boolean table, SaPathRecord query, long mask);
}
