/**
 * IPoIB interfaces as Linux network devices: a TUN device per bridged interface, the kernel's IP
 * stack above, this project's link layer (ARP, ND, path records, multicast) below; hosts in
 * network namespaces. Private: nothing is exported.
 */
package ipoib.netdev.internal;
