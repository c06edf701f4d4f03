/**
 * The verbs service provider interface: what a link needs from an InfiniBand provider, modelled
 * on the verbs of IBA chapter 11 and rdma-core's libibverbs so that the loopback fabric and real
 * hardware are interchangeable.
 *
 * <h2>Threading and ownership</h2>
 * <ul>
 * <li>Providers register {@link ipoib.api.verbs.VerbsProvider} services. Every method of the
 * SPI is thread-safe unless its javadoc says otherwise; data-path methods
 * ({@code postSend}, {@code postReceive}, {@code poll}) never block and never allocate.</li>
 * <li>Buffers belong to the caller. A buffer handed to {@code postSend} or {@code postReceive}
 * is the provider's until its work completion has been polled; it must lie inside a
 * {@link ipoib.api.verbs.MemoryRegion} registered with the same device.</li>
 * <li>Resources ({@link ipoib.api.verbs.UdQueuePair}, {@link ipoib.api.verbs.CompletionQueue},
 * {@link ipoib.api.verbs.AddressHandle}, {@link ipoib.api.verbs.MemoryRegion}) are
 * {@link java.lang.AutoCloseable}: the creator closes them. When a provider goes away its
 * resources fail further calls with {@link ipoib.api.verbs.VerbsException}.</li>
 * <li>Work requests can be posted one by one or as a list ({@link ipoib.api.verbs.SendWorkRequests},
 * {@link ipoib.api.verbs.ReceiveWorkRequests}, since 1.2), as {@code ibv_post_send} and
 * {@code ibv_post_recv} take a chain: the caller preallocates the list and reuses it.</li>
 * <li>Errors of a call are {@link ipoib.api.verbs.VerbsException}s; errors of a posted work
 * request arrive as a completion status, as in verbs.</li>
 * </ul>
 */
@Export
@Version("1.3.0")
package ipoib.api.verbs;

import org.osgi.annotation.bundle.Export;
import org.osgi.annotation.versioning.Version;
