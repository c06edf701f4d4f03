/** The IPoIB link implementation (private). */
package ipoib.link.internal;
