/**
 * Subnet administration (IBA 15.4) on top of the wire formats of {@code ipoib.codec.mad}: the
 * client that both verbs providers offer as {@link ipoib.api.sa.SubnetAdministrator}
 * ({@link ipoib.sa.SaClient}: it runs over any {@link ipoib.api.sa.MadTransport}, matches answers
 * by transaction ID, retries on timeout on its control loop's clock, receives RMPP answers,
 * answers Reports and hands group traps to subscribers), the RMPP sender
 * ({@link ipoib.sa.RmppSender}) of the loopback SA, and joining a group that may not exist
 * ({@link ipoib.sa.JoinOrCreate}).
 *
 * <p>Not exported: each bundle that uses it embeds a private copy with bnd's
 * {@code -conditionalpackage}, as {@code ipoib.runtime}.
 */
package ipoib.sa;
