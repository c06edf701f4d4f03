package ipoib.console.internal;

import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One table of a console page, drawn as HTML and given as JSON from the same rows: each column
 * has a JSON key and a heading. The HTML names the JSON key and the columns
 * ({@code data-live}, {@code data-columns}) so that the page's script redraws the rows from the
 * page's JSON without a reload: the array of that name, or with {@code outer/inner} the records of
 * each outer record's inner array, the outer record's fields included. A table with a
 * {@link #source} is redrawn from that JSON instead of the page's ({@code data-live-source}).
 */
record Table(String id, String key, List<Column> columns, List<List<Object>> rows, String empty, String source) {

    /** A table redrawn from the page's JSON. */
    Table(String id, String key, List<Column> columns, List<List<Object>> rows, String empty) {
        this(id, key, columns, rows, empty, null);
    }

    /**
     * The table of a JSON object's records at {@code key} ({@code member} or {@code member/inner},
     * see above), one row per record, the cells its fields of the columns' keys (missing: null).
     */
    static Table of(String id, String key, List<Column> columns, Map<String, ?> object, String empty, String source) {
        List<List<Object>> rows = new ArrayList<>();
        for (Map<?, ?> record : records(object, key)) {
            List<Object> row = new ArrayList<>();
            for (Column c : columns) {
                row.add(record.get(c.key()));
            }
            rows.add(row);
        }
        return new Table(id, key, columns, rows, empty, source);
    }

    private static List<Map<?, ?>> records(Map<String, ?> object, String key) {
        int slash = key.indexOf('/');
        List<Map<?, ?>> outer = maps(object.get(slash < 0 ? key : key.substring(0, slash)));
        if (slash < 0) {
            return outer;
        }
        List<Map<?, ?>> out = new ArrayList<>();
        for (Map<?, ?> o : outer) {
            for (Map<?, ?> inner : maps(o.get(key.substring(slash + 1)))) {
                Map<Object, Object> merged = new LinkedHashMap<>(o);
                merged.putAll(inner);
                out.add(merged);
            }
        }
        return out;
    }

    private static List<Map<?, ?>> maps(Object value) {
        List<Map<?, ?>> out = new ArrayList<>();
        if (value instanceof Collection<?> c) {
            for (Object o : c) {
                if (o instanceof Map<?, ?> m) {
                    out.add(m);
                }
            }
        }
        return out;
    }

    record Column(String key, String heading) {}

    static List<Column> columns(String... keysAndHeadings) {
        List<Column> out = new ArrayList<>();
        for (int i = 0; i < keysAndHeadings.length; i += 2) {
            out.add(new Column(keysAndHeadings[i], keysAndHeadings[i + 1]));
        }
        return List.copyOf(out);
    }

    /** The rows as JSON objects: numbers and booleans as they are, everything else as its text. */
    List<Map<String, Object>> json() {
        List<Map<String, Object>> out = new ArrayList<>();
        for (List<Object> row : rows) {
            Map<String, Object> object = new LinkedHashMap<>();
            for (int i = 0; i < columns.size(); i++) {
                object.put(columns.get(i).key(), jsonValue(row.get(i)));
            }
            out.add(object);
        }
        return out;
    }

    private static Object jsonValue(Object v) {
        return v instanceof Number || v instanceof Boolean || v instanceof Map<?, ?> || v == null ? v : v.toString();
    }

    /** The table; without rows one row says why ({@link #empty}). */
    void html(StringBuilder out) {
        StringBuilder keys = new StringBuilder();
        for (Column c : columns) {
            keys.append(keys.isEmpty() ? "" : ",").append(c.key());
        }
        out.append("<table class='tablesorter nicetable' id='").append(Html.esc(id)).append("' data-live='")
                .append(Html.esc(key)).append("' data-columns='").append(Html.esc(keys)).append("' data-empty='")
                .append(Html.esc(empty)).append(source == null ? "" : "' data-live-source='" + Html.esc(source))
                .append("'><thead><tr>");
        for (Column c : columns) {
            out.append("<th>").append(Html.esc(c.heading())).append("</th>");
        }
        out.append("</tr></thead><tbody>\n");
        if (rows.isEmpty()) {
            out.append("<tr><td colspan='").append(columns.size()).append("'>").append(Html.esc(empty)).append("</td></tr>\n");
        }
        for (List<Object> row : rows) {
            out.append("<tr>");
            for (Object cell : row) {
                out.append("<td>").append(Html.esc(Html.cell(cell))).append("</td>");
            }
            out.append("</tr>\n");
        }
        out.append("</tbody></table>\n");
    }

    /** The table as plain text (the status dump): a heading, then one line per row. */
    void text(StringBuilder out, String heading) {
        out.append(heading).append('\n');
        if (rows.isEmpty()) {
            out.append("  ").append(empty).append('\n');
        }
        for (List<Object> row : rows) {
            out.append(' ');
            for (int i = 0; i < columns.size(); i++) {
                Object cell = row.get(i);
                out.append(' ').append(columns.get(i).key()).append('=')
                        .append(cell instanceof Map<?, ?> m ? "{" + Html.pairs(m) + "}" : String.valueOf(cell));
            }
            out.append('\n');
        }
    }
}
