/**
 * The real-hardware verbs provider (private): devices, ports, queue pairs, completion queues and
 * the MAD transport over libibverbs and libibumad, its OSGi component, configuration and shell
 * commands.
 */
package ipoib.verbs.fabric.internal;
