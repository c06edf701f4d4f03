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

    /** A table with a header row and escaped cells; {@code id} names it for tests and scripts. */
    static void table(StringBuilder out, String id, List<String> header, List<List<Object>> rows, String empty) {
        if (rows.isEmpty()) {
            out.append("<p class='statline' id='").append(esc(id)).append("'>").append(esc(empty)).append("</p>\n");
            return;
        }
        out.append("<table class='tablesorter nicetable' id='").append(esc(id)).append("'><thead><tr>");
        for (String h : header) {
            out.append("<th>").append(esc(h)).append("</th>");
        }
        out.append("</tr></thead><tbody>\n");
        for (List<Object> row : rows) {
            out.append("<tr>");
            for (Object cell : row) {
                out.append("<td>").append(esc(cell)).append("</td>");
            }
            out.append("</tr>\n");
        }
        out.append("</tbody></table>\n");
    }

    static void heading(StringBuilder out, String text) {
        out.append("<h2 class='ipoib' style='font-size:1.2em;font-weight:bold;margin:1em 0 .4em'>").append(esc(text)).append("</h2>\n");
    }
}
