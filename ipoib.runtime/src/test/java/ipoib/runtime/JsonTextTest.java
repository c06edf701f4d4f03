package ipoib.runtime;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import jakarta.json.Json;
import jakarta.json.JsonObject;
import jakarta.json.JsonValue;
import java.io.StringReader;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The listings' JSON read back by a real parser (Eclipse Parsson). */
class JsonTextTest {

    static JsonObject parse(String text) {
        try (var reader = Json.createReader(new StringReader(text))) {
            return reader.readObject();
        }
    }

    @Test
    void everyCharacterOfAStringComesBackAsItWas() {
        StringBuilder all = new StringBuilder("quote \" backslash \\ slash / ");
        for (char c = 0; c < 0x80; c++) {
            all.append(c);
        }
        all.append("\u00e9\u2028\u2029\ud83d\ude00");
        JsonObject o = parse(JsonText.of(JsonText.record("s", all.toString())));
        assertEquals(all.toString(), o.getString("s"));
    }

    @Test
    void numbersBooleansNullsAndNestedRecordsKeepTheirTypesAndOrder() {
        List<Object> items = new ArrayList<>(List.of(1, 2L, 2.5));
        items.add(null);
        String text = JsonText.of(JsonText.record("long", Long.MAX_VALUE, "bool", true, "nan", Double.NaN,
                "items", items, "inner", JsonText.record("b", 1, "a", "x"), "other", new StringBuilder("sb")));
        JsonObject o = parse(text);
        assertEquals(Long.MAX_VALUE, o.getJsonNumber("long").longValueExact());
        assertTrue(o.getBoolean("bool"));
        assertEquals(JsonValue.NULL, o.get("nan"));
        assertEquals(4, o.getJsonArray("items").size());
        assertEquals(2.5, o.getJsonArray("items").getJsonNumber(2).doubleValue());
        assertEquals(List.of("b", "a"), new ArrayList<>(o.getJsonObject("inner").keySet()));
        assertEquals("sb", o.getString("other"));
        assertFalse(text.contains("\n"));
    }

    @Test
    void theFlagIsFoundAndTakenOut() {
        assertTrue(JsonText.wanted("ib0_1_ffff", "--json"));
        assertFalse(JsonText.wanted("ib0_1_ffff"));
        assertArrayEquals(new String[] {"ib0_1_ffff"}, JsonText.withoutFlag("--json", "ib0_1_ffff"));
        assertEquals(List.of(), Arrays.asList(JsonText.withoutFlag("--json")));
    }
}
