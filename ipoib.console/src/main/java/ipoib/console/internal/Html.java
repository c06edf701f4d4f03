package ipoib.console.internal;

import java.util.List;

/** Escaping and the few HTML pieces the plugins share. */
final class Html {
    private Html() {}

    static String esc(Object value) {
        String s = String.valueOf(value == null ? "-" : value);
        StringBuilder out = new StringBuilder(s.length() + 16);
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '<' -> out.append("&lt;");
                case '>' -> out.append("&gt;");
                case '&' -> out.append("&amp;");
                case '"' -> out.append("&quot;");
                case '\'' -> out.append("&#39;");
                default -> out.append(c);
            }
        }
        return out.toString();
    }

    /** A map as {@code key=value} pairs separated by two spaces (the events' properties). */
    static String pairs(java.util.Map<?, ?> map) {
        StringBuilder out = new StringBuilder();
        map.forEach((k, v) -> out.append(out.isEmpty() ? "" : "  ").append(k).append('=').append(v));
        return out.toString();
    }

    /**
     * A table cell as the console's script writes it too: a map as {@link #pairs}, a list's items
     * separated by a space, null as "-".
     */
    static Object cell(Object value) {
        if (value instanceof java.util.Map<?, ?> m) {
            return pairs(m);
        }
        if (value instanceof java.util.Collection<?> c) {
            return String.join(" ", c.stream().map(String::valueOf).toList());
        }
        return value;
    }

    /**
     * The marker that makes live.js redraw the page's tables from {@code <label>.json} every
     * {@link ConsoleConfiguration#refreshMillis} (2 s by default),
     * and the script itself (served by the IPoIB page of this bundle).
     */
    static void liveScript(StringBuilder out, jakarta.servlet.http.HttpServletRequest request, String label) {
        Object app = request.getAttribute("felix.webconsole.appRoot");
        String appRoot = app != null ? app.toString() : request.getContextPath();
        out.append("<div id='ipoib-refresh' data-source='").append(esc(appRoot)).append('/').append(esc(label))
                .append(".json' hidden></div>\n<script src='").append(esc(appRoot)).append('/')
                .append(IpoibPlugin.LABEL).append("/live.js'></script>\n");
    }

    static void heading(StringBuilder out, String text) {
        out.append("<h2 class='ipoib' style='font-size:1.2em;font-weight:bold;margin:1em 0 .4em'>").append(esc(text)).append("</h2>\n");
    }
}
