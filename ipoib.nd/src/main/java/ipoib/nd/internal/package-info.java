/** The Neighbor Discovery resolver component (private). */
package ipoib.nd.internal;
