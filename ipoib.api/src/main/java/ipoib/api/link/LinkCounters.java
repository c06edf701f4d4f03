package ipoib.api.link;

/**
 * A snapshot of a link's counters, named as the kernel names them where there is a kernel
 * equivalent.
 *
 * @param rxPackets frames delivered to a handler
 * @param rxBytes their payload octets
 * @param rxMulticast multicast frames among them
 * @param rxDroppedNoHandler frames of an EtherType nobody handles
 * @param rxDroppedMalformed frames too short or otherwise malformed
 * @param rxErrors receive completions with an error status
 * @param txPackets frames posted
 * @param txBytes their payload octets
 * @param txMulticast multicast frames among them
 * @param txDropped frames dropped before posting (see the link's drop reasons)
 * @param txErrors send completions with an error status
 * @param handlerErrors exceptions thrown by frame handlers
 */
public record LinkCounters(long rxPackets, long rxBytes, long rxMulticast, long rxDroppedNoHandler,
                           long rxDroppedMalformed, long rxErrors, long txPackets, long txBytes, long txMulticast,
                           long txDropped, long txErrors, long handlerErrors) {
}
