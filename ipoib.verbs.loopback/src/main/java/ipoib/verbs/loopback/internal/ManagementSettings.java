package ipoib.verbs.loopback.internal;

import java.util.regex.Pattern;

/**
 * Who manages the loopback subnet and whether ibsim's protocol is served: the {@code sm},
 * {@code simulator}, {@code simulatorName} and {@code simulatorPort} properties, checked
 * together. {@code sm} is fixed while the fabric runs.
 *
 * @param externalSm {@code sm=external}: the SM that attaches through the simulator server manages the subnet
 * @param simulator {@code off}, {@code local} or {@code udp}
 */
record ManagementSettings(boolean externalSm, String simulator, String simulatorName, int simulatorPort) {
    static final String EMULATED = "emulated";
    static final String EXTERNAL = "external";
    static final String OFF = "off";
    static final String LOCAL = "local";
    static final String UDP = "udp";
    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9._-]{1,64}");

    /**
     * The settings of a configuration whose properties passed the metatype's check.
     *
     * @throws IllegalArgumentException naming the property, the value and what is allowed
     */
    static ManagementSettings of(String sm, String simulator, String simulatorName, int simulatorPort) {
        if (!NAME.matcher(simulatorName).matches()) {
            throw new IllegalArgumentException("invalid loopback property 'simulatorName' value '" + simulatorName
                    + "': allowed 1..64 letters, digits, '.', '_' or '-' (the sockets are @NAME:ctl, @NAME:out0..9)");
        }
        boolean external = EXTERNAL.equals(sm);
        if (external && OFF.equals(simulator)) {
            throw new IllegalArgumentException("invalid loopback property 'sm' value 'external' with simulator 'off': "
                    + "an external SM attaches through the simulator server; allowed with simulator 'local' or 'udp'");
        }
        return new ManagementSettings(external, simulator, simulatorName, simulatorPort);
    }

    static ManagementSettings of(LoopbackConfiguration c) {
        return of(c.sm(), c.simulator(), c.simulatorName(), c.simulatorPort());
    }

    String sm() {
        return externalSm ? EXTERNAL : EMULATED;
    }

    boolean serves() {
        return !OFF.equals(simulator);
    }

    /** Why these settings cannot replace {@code inForce} on the running fabric, or null. */
    String refusalToReplace(ManagementSettings inForce) {
        if (inForce == null || !inForce.externalSm && !externalSm) {
            return null;
        }
        if (inForce.externalSm && externalSm) {
            // A new configuration builds a new fabric, and an SM attached through umad2sim does not
            // attach again: OpenSM would go on managing nothing.
            return "the loopback's configuration cannot change while an external SM manages the fabric: a new "
                    + "fabric would leave it and the attached tools without one; set it before start (stop the "
                    + "appliance, then ./ipoib --opensm with the new configuration stored)";
        }
        return "loopback property 'sm' cannot change from '" + inForce.sm() + "' to '" + sm()
                + "' while the fabric runs: the interfaces' LIDs, groups and paths belong to the SM in force; "
                + "set it before start (./ipoib --opensm starts with sm=external)";
    }
}
