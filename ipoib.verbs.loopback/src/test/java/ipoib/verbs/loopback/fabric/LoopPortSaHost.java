package ipoib.verbs.loopback.fabric;

import ipoib.api.Gid;
import ipoib.api.Lid;
import ipoib.api.sa.SubnetAdministrator;
import ipoib.codec.mad.SaAttribute;
import ipoib.sa.SaClient;
import ipoib.satest.SaHost;
import java.util.List;
import java.util.concurrent.CompletionStage;

/** An HCA port of the loopback fabric and its SA client, as the shared SA contract drives it. */
public record LoopPortSaHost(LoopPort port) implements SaHost {
    @Override
    public String name() {
        return port.toString();
    }

    @Override
    public Gid portGid() {
        return port.gid(0);
    }

    @Override
    public Lid lid() {
        return port.attributes().lid();
    }

    @Override
    public SubnetAdministrator sa() {
        return port.subnetAdministrator();
    }

    @Override
    public SubnetAdministrator sa(long smKey) {
        return ((SaClient) port.subnetAdministrator()).withSmKey(smKey);
    }

    @Override
    public <R> CompletionStage<List<R>> records(SaAttribute<R> attribute, boolean table, R query, long mask) {
        return ((SaClient) port.subnetAdministrator()).records(attribute, table, query, mask);
    }
}
