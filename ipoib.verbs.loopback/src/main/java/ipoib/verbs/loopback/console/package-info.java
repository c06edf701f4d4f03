/**
 * The loopback fabric's pages in the Felix Web Console (private): the subnet picture, SA
 * statistics and fault controls, and the fabric's counters for the console's /metrics. They come
 * and go with the loopback provider.
 */
package ipoib.verbs.loopback.console;
