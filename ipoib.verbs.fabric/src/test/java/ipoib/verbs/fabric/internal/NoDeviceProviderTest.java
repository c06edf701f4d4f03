package ipoib.verbs.fabric.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ipoib.api.verbs.ProviderStatus;
import ipoib.api.verbs.VerbsException;
import org.junit.jupiter.api.Test;

/**
 * The provider on this kind of machine: libibverbs installed, no RDMA devices (ENOSYS from a
 * kernel without RDMA, or an empty list). It still registers, says why, logs it once, and its
 * commands print the reason.
 */
class NoDeviceProviderTest {

    @Test
    void withoutDevicesTheProviderSaysWhyAndLogsItOnce() {
        TestConfig.RecordingLog log = new TestConfig.RecordingLog();
        FabricVerbsProvider provider = new FabricVerbsProvider(new TestConfig(), java.util.Map.of(), log.logger());
        try {
            ProviderStatus status = provider.status();
            assertEquals("fabric", provider.name());
            assertFalse(status.available());
            assertTrue(status.reason().equals("no RDMA devices: ibv_get_device_list failed, errno 38 (ENOSYS)")
                    || status.reason().equals("no RDMA devices: empty device list"), status.reason());
            assertTrue(provider.devices().isEmpty());
            assertEquals(1, log.lines.size(), "logged once: " + log.lines);
            assertTrue(log.lines.get(0).startsWith("info fabric provider unavailable: " + status.reason()),
                    log.lines.toString());
        } finally {
            provider.close();
            provider.close();
        }
    }

    /** Finding that there is no device links the device list's functions, not the other verbs. */
    @Test
    void withoutDevicesOnlyTheDeviceListIsLinked() {
        FabricRuntime runtime = FabricRuntime.start(FabricRuntime.Settings.defaults(),
                new TestConfig.RecordingLog().fabricLog());
        try {
            assertFalse(runtime.status().available(), runtime.status().reason());
            assertFalse(runtime.ibv().verbsBound());
        } finally {
            runtime.close();
        }
    }

    @Test
    void aMissingLibibverbsIsTheReason() {
        TestConfig c = new TestConfig();
        c.verbsLibrary = "libibverbs-not-installed.so.1";
        TestConfig.RecordingLog log = new TestConfig.RecordingLog();
        FabricVerbsProvider provider = new FabricVerbsProvider(c, java.util.Map.of(), log.logger());
        String reason = provider.status().reason();
        assertTrue(reason.startsWith("libibverbs not available: libibverbs-not-installed.so.1 cannot be loaded"),
                reason);
        assertEquals(1, log.lines.size());
        assertTrue(log.lines.get(0).startsWith("warn fabric provider unavailable: libibverbs not available"));
        provider.close();
    }

    @Test
    void aLibraryWithoutTheVerbsIsTheReason() {
        TestConfig c = new TestConfig();
        c.verbsLibrary = "libc.so.6";
        FabricVerbsProvider provider = new FabricVerbsProvider(c, java.util.Map.of(), new TestConfig.RecordingLog().logger());
        assertEquals("libibverbs not available: libc.so.6 has no symbol ibv_get_device_list",
                provider.status().reason());
        provider.close();
    }

    @Test
    void anInvalidConfigurationIsTheStatusNamingPropertyValueAndRange() {
        TestConfig c = new TestConfig();
        c.saTimeoutMillis = 5;
        TestConfig.RecordingLog log = new TestConfig.RecordingLog();
        FabricVerbsProvider provider = new FabricVerbsProvider(c, java.util.Map.of(), log.logger());
        assertEquals("invalid configuration: invalid ipoib.verbs.fabric property 'saTimeoutMillis' value 5 is out of "
                + "range: allowed 10..60000", provider.status().reason());
        assertEquals(1, log.lines.size());
        assertTrue(log.lines.get(0).startsWith("error fabric provider not started: invalid ipoib.verbs.fabric property"));
        assertTrue(provider.devices().isEmpty());
        provider.close();
    }

    @Test
    void theDevicesCommandPrintsTheReasonAndThePortCommandRefuses() {
        FabricVerbsProvider provider = new FabricVerbsProvider(new TestConfig(), java.util.Map.of(), new TestConfig.RecordingLog().logger());
        try {
            VerbsCommands commands = new VerbsCommands(provider);
            assertEquals("fabric provider: no devices: " + provider.status().reason() + "\n", commands.devices());
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> commands.port("mlx5_0", "1"));
            assertEquals("the fabric provider has no devices: " + provider.status().reason(), e.getMessage());
            assertEquals("invalid port 'one': allowed a port number from 1; usage: verbs:port <device> <port> [--json], e.g. "
                    + "verbs:port mlx5_0 1", assertThrows(IllegalArgumentException.class,
                    () -> commands.port("mlx5_0", "one")).getMessage());
            assertEquals("usage: verbs:port <device> <port> [--json], e.g. verbs:port mlx5_0 1",
                    assertThrows(IllegalArgumentException.class, commands::port).getMessage());
        } finally {
            provider.close();
        }
    }

    @Test
    void aMissingLibibumadIsReportedWhenTheMadTransportIsNeeded() {
        TestConfig.RecordingLog log = new TestConfig.RecordingLog();
        FabricRuntime.Settings d = FabricRuntime.Settings.defaults();
        FabricRuntime runtime = FabricRuntime.start(new FabricRuntime.Settings(d.verbsLibrary(),
                "libibumad-not-installed.so.3", d.deviceFilter(), d.saTimeoutMillis(), d.saAttempts(), d.smKey()),
                log.fabricLog());
        try {
            VerbsException e = assertThrows(VerbsException.class, runtime::umad);
            assertTrue(e.getMessage().startsWith("libibumad not available: libibumad-not-installed.so.3 cannot be"),
                    e.getMessage());
        } finally {
            runtime.close();
        }
        assertEquals("the fabric provider is stopped", runtime.status().reason());
    }

    @Test
    void withoutAnUmadDeviceTheTransportNamesTheFailingCall() {
        FabricRuntime runtime = FabricRuntime.start(FabricRuntime.Settings.defaults(),
                new TestConfig.RecordingLog().fabricLog());
        try {
            VerbsException e = assertThrows(VerbsException.class,
                    () -> UmadTransport.open(runtime.umad(), "nosuchca0", 1, runtime.log()));
            assertTrue(e.getMessage().startsWith("umad_get_port(nosuchca0, 1) failed: errno "), e.getMessage());
        } finally {
            runtime.close();
        }
    }
}
