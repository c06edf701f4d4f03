/**
 * The small runtime every engine of the stack shares (not exported: each bundle that uses it
 * embeds a private copy with bnd's {@code -conditionalpackage}).
 *
 * <ul>
 * <li>{@link ipoib.runtime.ControlLoop}: the one thread that owns an engine's state; work from
 * other threads is posted to it, timers fire on it, failures of its tasks are reported, never
 * thrown into the framework. {@link ipoib.runtime.ThreadControlLoop} runs it on a thread;
 * {@link ipoib.runtime.ManualControlLoop} runs it under a test's hand with a
 * {@link ipoib.runtime.ManualClock}, so retries, backoff and timeouts are tested without waiting.</li>
 * <li>{@link ipoib.runtime.Clock}, {@link ipoib.runtime.RateLimiter},
 * {@link ipoib.runtime.Backoff}, {@link ipoib.runtime.Counters}.</li>
 * <li>{@link ipoib.runtime.ConfigCheck}: a component's configuration checked against the
 * metatype that bnd generates from its {@code @ObjectClassDefinition}, so that each range is
 * declared once.</li>
 * <li>{@link ipoib.runtime.CaptureFiles}: the capture directory, and capture files created there
 * new and never through a symbolic link.</li>
 * <li>{@link ipoib.runtime.JsonText}: the JSON the shell's listings print with {@code --json}.</li>
 * </ul>
 */
package ipoib.runtime;
