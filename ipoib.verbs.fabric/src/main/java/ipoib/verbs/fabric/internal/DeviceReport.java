package ipoib.verbs.fabric.internal;

import ipoib.api.Gid;
import ipoib.api.verbs.Device;
import ipoib.api.verbs.Port;
import ipoib.api.verbs.PortAttributes;
import ipoib.api.verbs.ProviderStatus;
import ipoib.api.verbs.VerbsException;
import ipoib.api.verbs.VerbsProvider;
import java.util.List;

/** Text of the shell commands; a failing query shows as its message, never as an exception. */
final class DeviceReport {
    private DeviceReport() {}

    static String devices(VerbsProvider provider) {
        ProviderStatus status = provider.status();
        if (!status.available()) {
            return "fabric provider: no devices: " + status.reason() + "\n";
        }
        StringBuilder sb = new StringBuilder("fabric provider: ").append(status.reason()).append('\n');
        for (Device d : provider.devices()) {
            sb.append(d.name()).append("  node GUID ").append(d.nodeGuid());
            if (d instanceof FabricDevice fd) {
                sb.append("  firmware ").append(fd.limits.firmware()).append(String.format("  vendor 0x%x part %d",
                        fd.limits.vendorId(), fd.limits.vendorPartId()));
            }
            sb.append('\n');
            for (Port p : d.ports()) {
                sb.append("  port ").append(p.number()).append(": ").append(summary(p)).append('\n');
            }
        }
        return sb.toString();
    }

    private static String summary(Port p) {
        try {
            PortAttributes a = p.attributes();
            String link = p instanceof FabricPort fp ? linkLayer(fp.linkLayer()) : "";
            return a.state() + "  LID " + a.lid() + "  SM LID " + a.smLid() + "  MTU " + a.activeMtu() + " (max "
                    + a.maxMtu() + ")  rate " + a.rate() + link;
        } catch (VerbsException e) {
            return e.getMessage();
        }
    }

    private static String linkLayer(int code) {
        return switch (code) {
            case 1 -> "  link InfiniBand";
            case 2 -> "  link Ethernet (RoCE: no subnet administrator, not for IPoIB)";
            default -> "  link unspecified (" + code + ")";
        };
    }

    /**
     * @throws IllegalArgumentException for an unknown device or a port out of range
     */
    static String port(VerbsProvider provider, String deviceName, int number) {
        ProviderStatus status = provider.status();
        if (!status.available()) {
            throw new IllegalArgumentException("the fabric provider has no devices: " + status.reason());
        }
        List<Device> devices = provider.devices();
        Device device = devices.stream().filter(d -> d.name().equals(deviceName)).findFirst()
                .orElseThrow(() -> new IllegalArgumentException("no device '" + deviceName + "': allowed "
                        + devices.stream().map(Device::name).toList()));
        if (number < 1 || number > device.ports().size()) {
            throw new IllegalArgumentException("invalid port " + number + " of " + deviceName + ": allowed 1.."
                    + device.ports().size());
        }
        Port p = device.port(number);
        StringBuilder sb = new StringBuilder(deviceName).append('/').append(number).append(": ").append(summary(p))
                .append('\n');
        try {
            PortAttributes a = p.attributes();
            sb.append(String.format("  LMC %d  SM SL %d  subnet prefix %s%n", a.lmc(), a.smServiceLevel(),
                    new Gid(a.subnetPrefix(), 0)));
            for (int i = 0; i < a.gidTableLength(); i++) {
                Gid g = p.gid(i);
                if (!g.equals(Gid.ZERO)) {
                    sb.append("  GID[").append(i).append("] ").append(g).append('\n');
                }
            }
            sb.append("  P_Keys ").append(p.pkeyTable()).append('\n');
            ProviderStatus cm = p.connectedModeSupport();
            sb.append("  connected mode: ").append(cm.available() ? "available: " : "").append(cm.reason()).append('\n');
        } catch (VerbsException e) {
            sb.append("  ").append(e.getMessage()).append('\n');
        }
        return sb.toString();
    }
}
