/**
 * The IPoIB link implementation (private), its core: the DS component and its configuration, the
 * engine and its DOWN → JOINING → UP state machine, the resources of an UP period and the
 * datagram send and receive paths. Connected mode, capture and the shell commands are in the
 * subpackages {@code cm}, {@code capture} and {@code commands}.
 */
package ipoib.link.internal;
