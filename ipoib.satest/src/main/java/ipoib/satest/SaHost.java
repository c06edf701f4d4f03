package ipoib.satest;

import ipoib.api.Gid;
import ipoib.api.Lid;
import ipoib.api.McMemberRecord;
import ipoib.api.sa.SubnetAdministrator;
import ipoib.codec.DecodeException;
import ipoib.codec.mad.SaAttribute;
import ipoib.codec.mad.SaMcMemberRecord;
import ipoib.codec.mad.SaPathRecord;
import ipoib.codec.mad.Selector;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletionException;
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
     * A trusted Get ({@code table} false) or GetTable of any SA attribute with the components
     * {@code mask} (the CM_* bits of the attribute's record type) taken from {@code query}: the
     * records as the SA wrote them. Every other query of this interface is made of this one.
     */
    <R> CompletionStage<List<R>> records(SaAttribute<R> attribute, boolean table, R query, long mask);

    /**
     * A trusted MCMemberRecord GetTable with the components {@code mask} (SaMcMemberRecord's
     * CM_* bits) taken from {@code query}.
     */
    default CompletionStage<List<McMemberRecord>> memberTable(McMemberRecord query, long mask) {
        return records(SaAttribute.MC_MEMBER_RECORD, true, SaMcMemberRecord.fromApi(query), mask).thenApply(list -> {
            List<McMemberRecord> out = new ArrayList<>();
            for (SaMcMemberRecord r : list) {
                try {
                    out.add(r.toApi());
                } catch (DecodeException e) {
                    throw new CompletionException(e);
                }
            }
            return out;
        });
    }

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
    default CompletionStage<List<SaPathRecord>> pathRecords(boolean table, SaPathRecord query, long mask) {
        return records(SaAttribute.PATH_RECORD, table, query, mask);
    }
}
