/**
 * Subnet management packets and performance management attributes (IBA 1.2.1 chapters 14 and
 * 16.1), as the loopback subnet's agents and the tools that talk to them carry them: the SMP
 * header, LID-routed and directed route ({@link ipoib.codec.smp.Smp}, §14.2.1); the SMA attributes
 * NodeInfo ({@link ipoib.codec.smp.NodeInfo}, §14.2.5.3), NodeDescription
 * ({@link ipoib.codec.smp.NodeDescription}, §14.2.5.2), SwitchInfo
 * ({@link ipoib.codec.smp.SwitchInfo}, §14.2.5.4), PortInfo ({@link ipoib.codec.smp.PortInfo},
 * §14.2.5.6), SMInfo ({@link ipoib.codec.smp.SmInfo}, §14.2.5.13) and the table blocks of
 * {@link ipoib.codec.smp.SmpTables} (GUIDInfo, P_KeyTable, SLtoVLMappingTable,
 * VLArbitrationTable, LinearForwardingTable, MulticastForwardingTable); the PMA's PortCounters
 * ({@link ipoib.codec.smp.PortCounters}, §16.1.3.5) and PortCountersExtended
 * ({@link ipoib.codec.smp.PortCountersExtended}, §16.1.4.11) (its ClassPortInfo is
 * {@link ipoib.codec.mad.ClassPortInfo}).
 *
 * <p>Pure functions on a caller-owned {@link java.lang.foreign.MemorySegment}, big-endian, at an
 * offset: records encode (reserved fields zero; {@link java.lang.IndexOutOfBoundsException} when
 * the segment is too small) and decode ({@link ipoib.codec.DecodeException} naming the field when
 * the segment is too short); the header and the table blocks are read and written in place, so
 * that an agent forwards and answers an SMP without building objects.
 */
@Export
@Version("1.0.0")
package ipoib.codec.smp;

import org.osgi.annotation.bundle.Export;
import org.osgi.annotation.versioning.Version;
