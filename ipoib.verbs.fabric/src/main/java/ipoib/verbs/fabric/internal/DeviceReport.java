package ipoib.verbs.fabric.internal;

import ipoib.api.Gid;
import ipoib.api.verbs.Device;
import ipoib.api.verbs.Port;
import ipoib.api.verbs.PortAttributes;
import ipoib.api.verbs.ProviderStatus;
import ipoib.api.verbs.VerbsException;
import ipoib.api.verbs.VerbsProvider;
import ipoib.runtime.JsonText;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Text and JSON of the shell commands; a failing query shows as its message (in JSON the field
 * {@code error}), never as an exception.
 */
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
        Port p = checkedPort(provider, deviceName, number);
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

    private static Port checkedPort(VerbsProvider provider, String deviceName, int number) {
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
        return device.port(number);
    }

    /** {@code verbs:devices --json}: the provider's status and its devices with their ports. */
    static String devicesJson(VerbsProvider provider) {
        ProviderStatus status = provider.status();
        List<Map<String, Object>> devices = new ArrayList<>();
        if (status.available()) {
            for (Device d : provider.devices()) {
                List<Map<String, Object>> ports = new ArrayList<>();
                for (Port p : d.ports()) {
                    ports.add(portRecord(p, false));
                }
                Map<String, Object> device = JsonText.record("name", d.name(), "nodeGuid", d.nodeGuid(),
                        "firmware", null, "vendorId", null, "vendorPartId", null, "ports", ports);
                if (d instanceof FabricDevice fd) {
                    device.put("firmware", fd.limits.firmware());
                    device.put("vendorId", String.format("0x%x", fd.limits.vendorId()));
                    device.put("vendorPartId", fd.limits.vendorPartId());
                }
                devices.add(device);
            }
        }
        return JsonText.of(JsonText.record("available", status.available(), "reason", status.reason(),
                "devices", devices));
    }

    /**
     * {@code verbs:port <device> <port> --json}: one port's record.
     *
     * @throws IllegalArgumentException as {@link #port}
     */
    static String portJson(VerbsProvider provider, String deviceName, int number) {
        return JsonText.of(JsonText.record("port", portRecord(checkedPort(provider, deviceName, number), true)));
    }

    /** A port's record: its attributes ({@code null} and {@code error} set when the query failed). */
    private static Map<String, Object> portRecord(Port p, boolean details) {
        Map<String, Object> r = JsonText.record("device", p.device().name(), "port", p.number(), "state", null,
                "lid", null, "smLid", null, "mtu", null, "maxMtu", null, "rate", null, "linkLayer",
                p instanceof FabricPort fp ? linkLayerName(fp.linkLayer()) : null);
        if (details) {
            r.putAll(JsonText.record("lmc", null, "smServiceLevel", null, "subnetPrefix", null, "gids", List.of(),
                    "pkeys", List.of(), "connectedMode", null));
        }
        r.put("error", null);
        try {
            PortAttributes a = p.attributes();
            r.putAll(JsonText.record("state", a.state(), "lid", a.lid(), "smLid", a.smLid(), "mtu",
                    a.activeMtu().bytes(), "maxMtu", a.maxMtu().bytes(), "rate", a.rate()));
            if (details) {
                List<Map<String, Object>> gids = new ArrayList<>();
                for (int i = 0; i < a.gidTableLength(); i++) {
                    Gid g = p.gid(i);
                    if (!g.equals(Gid.ZERO)) {
                        gids.add(JsonText.record("index", i, "gid", g));
                    }
                }
                ProviderStatus cm = p.connectedModeSupport();
                r.putAll(JsonText.record("lmc", a.lmc(), "smServiceLevel", a.smServiceLevel(), "subnetPrefix",
                        new Gid(a.subnetPrefix(), 0), "gids", gids, "pkeys", p.pkeyTable().keys(), "connectedMode",
                        JsonText.record("available", cm.available(), "reason", cm.reason())));
            }
        } catch (VerbsException e) {
            r.put("error", e.getMessage());
        }
        return r;
    }

    private static String linkLayerName(int code) {
        return switch (code) {
            case 1 -> "InfiniBand";
            case 2 -> "Ethernet";
            default -> "unspecified";
        };
    }
}
