/**
 * The loopback fabric itself, in plain Java: devices, ports, UD queue pairs, completion
 * queues, the emulated subnet manager (LIDs, partitions, multicast groups) and fault
 * injection. Private to the bundle; the OSGi component wraps it.
 */
package ipoib.verbs.loopback.fabric;
