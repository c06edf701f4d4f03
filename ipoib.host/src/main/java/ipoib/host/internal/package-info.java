/** The host layer's components (private). */
package ipoib.host.internal;
