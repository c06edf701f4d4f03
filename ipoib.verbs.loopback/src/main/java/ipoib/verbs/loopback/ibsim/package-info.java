/**
 * ibsim's client protocol (linux-rdma/ibsim, {@code include/ibsim.h}) served by the loopback
 * fabric, so that programs under Debian's {@code libumad2sim} (OpenSM, infiniband-diags) attach
 * to it as they would to {@code ibsim}: the control datagrams, the per-client request datagrams,
 * over abstract AF_UNIX datagram sockets or UDP on 127.0.0.1. Private to the bundle.
 */
package ipoib.verbs.loopback.ibsim;
