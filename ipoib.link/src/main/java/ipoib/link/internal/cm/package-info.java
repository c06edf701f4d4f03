/**
 * Connected mode of a link (RFC 4755), private: the port's CM agent, both sides of the connection
 * set-up, the connections, their buffers, send path and receive thread, and the ICMP "too big"
 * notice for frames that only UD reaches.
 */
package ipoib.link.internal.cm;
