package ipoib.link.internal;

import ipoib.api.McMemberRecord;
import ipoib.api.Mgid;
import ipoib.api.link.IpoibLink;
import ipoib.api.link.MulticastAttachment;

/** The multicast-attach role of a link, registered as its own service for the multicast manager. */
final class LinkMulticastAttachment implements MulticastAttachment {
    private final LinkEngine engine;

    LinkMulticastAttachment(LinkEngine engine) {
        this.engine = engine;
    }

    @Override
    public IpoibLink link() {
        return engine;
    }

    @Override
    public void addMulticastGroup(McMemberRecord joined, boolean receive) {
        engine.status().requireUp("add multicast group " + joined.mgid()).addGroup(joined, receive);
    }

    @Override
    public void removeMulticastGroup(Mgid group) {
        LinkResources r = engine.status().resources();
        if (r != null) {
            r.removeGroup(group);
        }
    }

    @Override
    public boolean hasMulticastGroup(Mgid group) {
        LinkResources r = engine.status().upResources();
        return r != null && r.hasGroup(group);
    }

    @Override
    public String toString() {
        return "multicast attachment of " + engine.name();
    }
}
