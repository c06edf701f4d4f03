/** The ARP resolver component (private). */
package ipoib.arp.internal;
