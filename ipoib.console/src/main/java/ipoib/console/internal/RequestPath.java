package ipoib.console.internal;

import java.io.ByteArrayOutputStream;
import java.util.ArrayDeque;
import java.util.Deque;

/**
 * The path a request names as the servlet container routes it: percent-decoded, with {@code .}
 * and {@code ..} segments resolved, so that {@code /%6detrics} and {@code /x/../metrics} are both
 * {@code /metrics}. A path whose meaning is ambiguous (an encoded {@code /} or {@code \}, path
 * parameters, a NUL, bad escapes) is {@code null}: it matches no rule that lets a request in.
 */
final class RequestPath {
    private RequestPath() {}

    static String normalise(String rawPath) {
        if (rawPath == null || rawPath.indexOf(';') >= 0 || rawPath.indexOf('\\') >= 0) {
            return null;
        }
        ByteArrayOutputStream decoded = new ByteArrayOutputStream(rawPath.length());
        for (int i = 0; i < rawPath.length(); i++) {
            char c = rawPath.charAt(i);
            if (c == '%') {
                if (i + 2 >= rawPath.length()) {
                    return null;
                }
                int hi = Character.digit(rawPath.charAt(i + 1), 16);
                int lo = Character.digit(rawPath.charAt(i + 2), 16);
                if (hi < 0 || lo < 0) {
                    return null;
                }
                int b = hi << 4 | lo;
                if (b == '/' || b == '\\' || b == 0 || b == ';') {
                    return null;
                }
                decoded.write(b);
                i += 2;
            } else if (c > 0x7f) {
                return null;
            } else {
                decoded.write(c);
            }
        }
        String path = decoded.toString(java.nio.charset.StandardCharsets.UTF_8);
        if (!path.startsWith("/")) {
            return null;
        }
        Deque<String> segments = new ArrayDeque<>();
        for (String s : path.substring(1).split("/", -1)) {
            if (s.equals("..")) {
                segments.pollLast();
            } else if (!s.equals(".")) {
                segments.addLast(s);
            }
        }
        return "/" + String.join("/", segments);
    }
}
