/** The capture of a link's frames as pcapng (private): the data path's ring and a link's captures. */
package ipoib.link.internal.capture;
