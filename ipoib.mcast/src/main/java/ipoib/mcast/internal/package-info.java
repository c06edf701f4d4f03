/** The multicast group manager (private). */
package ipoib.mcast.internal;
