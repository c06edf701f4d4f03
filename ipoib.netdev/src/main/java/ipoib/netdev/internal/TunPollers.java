package ipoib.netdev.internal;

import java.io.IOException;

/**
 * The pollers that read every bridged device of the appliance: one {@link DescriptorPoller} per
 * CPU, each device on the one with the fewest devices when it registers. Hundreds of devices
 * then take as many platform threads as there are CPUs, not one each (a device's read waits in a
 * native call, which would hold a virtual thread's carrier).
 */
final class TunPollers {
    private static final DescriptorPoller[] POLLERS = pollers(Runtime.getRuntime().availableProcessors());

    private TunPollers() {}

    static DescriptorPoller[] pollers(int count) {
        DescriptorPoller[] pollers = new DescriptorPoller[Math.max(1, count)];
        for (int i = 0; i < pollers.length; i++) {
            pollers[i] = new DescriptorPoller("ipoib-netdev-poller-" + i);
        }
        return pollers;
    }

    /** Reads {@code fd} with {@code reader} on the least loaded poller until the registration is closed. */
    static DescriptorPoller.Registration register(int fd, DescriptorPoller.Reader reader) throws IOException {
        return register(POLLERS, fd, reader);
    }

    static synchronized DescriptorPoller.Registration register(DescriptorPoller[] pollers, int fd,
                                                              DescriptorPoller.Reader reader) throws IOException {
        DescriptorPoller least = pollers[0];
        for (DescriptorPoller p : pollers) {
            if (p.registered() < least.registered()) {
                least = p;
            }
        }
        return least.register(fd, reader);
    }
}
