package ipoib.host.internal;

import ipoib.api.host.AddressListener;
import ipoib.api.host.AddressOrigin;
import ipoib.api.host.AddressState;
import ipoib.api.host.InterfaceAddress;
import ipoib.api.host.InterfaceAddresses;
import java.net.InetAddress;
import java.time.Instant;
import java.util.List;
import org.osgi.framework.BundleContext;
import org.osgi.framework.ServiceReference;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.log.Logger;
import org.osgi.service.log.LoggerFactory;
import org.osgi.util.tracker.ServiceTracker;

/**
 * The interface addresses. A component of its own, with no references to the resolvers, so
 * that the resolvers can use it while the IP stack uses them (no reference cycle).
 */
@Component(service = InterfaceAddresses.class, immediate = true)
public final class AddressTableComponent implements InterfaceAddresses {

    private final Logger log;
    private final BundleContext context;
    private final AddressTable table;
    /**
     * The {@link AddressListener} whiteboard, tracked by reference and fetched when there is
     * news, so that a listener that also uses this service is never activated from here.
     */
    private final ServiceTracker<AddressListener, ServiceReference<AddressListener>> listeners;

    @Activate
    public AddressTableComponent(BundleContext context, @Reference(service = LoggerFactory.class) Logger log) {
        this.log = log;
        this.context = context;
        this.listeners = new ServiceTracker<>(context, AddressListener.class, null) {
            @Override
            public ServiceReference<AddressListener> addingService(ServiceReference<AddressListener> reference) {
                return reference;
            }
        };
        this.listeners.open();
        this.table = new AddressTable(this::notifyListeners);
    }

    @Deactivate
    void deactivate() {
        listeners.close();
    }

    AddressTable table() {
        return table;
    }

    private void notifyListeners(InterfaceAddress address, AddressListener.Change change) {
        ServiceReference<AddressListener>[] refs = listeners.getServiceReferences();
        if (refs == null) {
            return;
        }
        for (ServiceReference<AddressListener> ref : refs) {
            AddressListener l;
            try {
                l = context.getService(ref);
            } catch (RuntimeException gone) {
                continue;
            }
            if (l == null) {
                continue;
            }
            try {
                l.addressChanged(address, change);
            } catch (RuntimeException e) {
                log.warn("address listener " + l.getClass().getName() + " failed on " + change + " of " + address, e);
            } finally {
                try {
                    context.ungetService(ref);
                } catch (RuntimeException ignored) {
                    // Unregistered meanwhile.
                }
            }
        }
    }

    @Override
    public List<InterfaceAddress> addresses(String linkName) {
        return table.addresses(linkName);
    }

    @Override
    public InterfaceAddress add(String linkName, InetAddress address, int prefixLength, AddressOrigin origin,
                                Instant validUntil) {
        return table.add(linkName, address, prefixLength, origin, validUntil);
    }

    @Override
    public boolean remove(String linkName, InetAddress address) {
        return table.remove(linkName, address);
    }

    @Override
    public boolean setState(String linkName, InetAddress address, AddressState state) {
        return table.setState(linkName, address, state);
    }
}
