package ipoib.neighbour;

import ipoib.runtime.RateLimiter;

/** Rate-limited log lines: the message with a note of the ones suppressed before it. */
public final class LogLines {
    private LogLines() {}

    /** The message to log now, or null when the limiter suppresses it. */
    public static String limit(RateLimiter limiter, String message) {
        long s = limiter.tryAcquire();
        if (s < 0) {
            return null;
        }
        return s == 0 ? message : message + " (" + s + " similar messages suppressed)";
    }
}
