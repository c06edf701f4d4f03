/**
 * The link bundle's Gogo commands (scope {@code ipoib}, private): interfaces, paths, counters,
 * configurations, connected mode, captures and the verbs providers.
 */
package ipoib.link.internal.commands;
