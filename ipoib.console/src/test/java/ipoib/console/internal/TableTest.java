package ipoib.console.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ipoib.runtime.JsonText;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class TableTest {
    private final List<Table.Column> columns = Table.columns("interface", "Interface", "rxPackets", "RX packets",
            "drops", "Drops");

    @Test
    void theHtmlNamesItsJsonKeyAndColumnsAndTheJsonHasTheSameRows() {
        Table t = new Table("ipoib-counters", "counters", columns,
                List.of(List.of("ib0", 12L, Map.of("no_handler", 3L))), "no interfaces");
        StringBuilder html = new StringBuilder();
        t.html(html);
        assertTrue(html.toString().contains("id='ipoib-counters' data-live='counters' data-columns='interface,rxPackets,drops'"),
                html.toString());
        assertTrue(html.toString().contains("<td>ib0</td><td>12</td><td>no_handler=3</td>"), html.toString());
        assertEquals("[{\"interface\":\"ib0\",\"rxPackets\":12,\"drops\":{\"no_handler\":3}}]", JsonText.of(t.json()));
    }

    @Test
    void withoutRowsOneRowSaysWhyAndTheJsonIsAnEmptyArray() {
        Table t = new Table("ipoib-links", "links", columns, List.of(), "no interfaces");
        StringBuilder html = new StringBuilder();
        t.html(html);
        assertTrue(html.toString().contains("<tr><td colspan='3'>no interfaces</td></tr>"), html.toString());
        assertTrue(html.toString().contains("data-empty='no interfaces'"));
        assertEquals("[]", JsonText.of(t.json()));
    }

    /** A listing's nested records: one row per inner record, the outer record's fields beside its own. */
    @Test
    void aListingsInnerRecordsAreRowsWithTheOuterFields() {
        Map<String, Object> listing = JsonText.record("paths", List.of(
                JsonText.record("name", "ib0", "state", "UP", "paths", List.of(
                        JsonText.record("destinationGid", "fe80::2", "lid", 2),
                        JsonText.record("destinationGid", "fe80::3", "lid", 3))),
                JsonText.record("name", "ib1", "state", "UP", "paths", List.of())));
        Table t = Table.of("ipoib-paths", "paths/paths", Table.columns("name", "Interface", "destinationGid", "GID",
                "lid", "LID", "rate", "Rate"), listing, "no paths", "/system/console/ipoib/paths.json");
        assertEquals(List.of(List.of("ib0", "fe80::2", 2), List.of("ib0", "fe80::3", 3)),
                t.rows().stream().map(r -> r.subList(0, 3)).toList());
        StringBuilder html = new StringBuilder();
        t.html(html);
        assertTrue(html.toString().contains("data-live='paths/paths'") && html.toString()
                .contains("data-live-source='/system/console/ipoib/paths.json'"), html.toString());
        assertTrue(html.toString().contains("<td>ib0</td><td>fe80::2</td><td>2</td><td>-</td>"), html.toString());
        Table outer = Table.of("ipoib-path-counters", "paths", Table.columns("name", "Interface", "addresses", "A"),
                JsonText.record("paths", List.of(JsonText.record("name", "ib0", "addresses", List.of("10.0.0.1/24", "fe80::1/64")))),
                "none", null);
        StringBuilder second = new StringBuilder();
        outer.html(second);
        assertTrue(second.toString().contains("<td>ib0</td><td>10.0.0.1/24 fe80::1/64</td>"), second.toString());
    }
}
