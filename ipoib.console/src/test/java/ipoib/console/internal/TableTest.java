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
}
