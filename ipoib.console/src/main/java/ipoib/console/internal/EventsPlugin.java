package ipoib.console.internal;

import ipoib.runtime.JsonText;
import jakarta.servlet.Servlet;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;

/**
 * The Web Console's Events page: the events ring, newest first, redrawn every 2 s from its JSON
 * ({@code ipoib-events.json}: {@code {"overwritten":n,"events":[{"sequence","time","topic","properties"}]}}).
 */
@Component(service = Servlet.class, property = {
        "felix.webconsole.label=" + EventsPlugin.LABEL,
        "felix.webconsole.title=Events",
        "felix.webconsole.category=IPoIB"})
public final class EventsPlugin extends HttpServlet {
    private static final long serialVersionUID = 1L;
    static final String LABEL = "ipoib-events";

    @Reference
    private EventRing ring;

    @Override
    protected void doGet(HttpServletRequest request, HttpServletResponse response) throws IOException {
        Table events = table();
        if (request.getRequestURI().endsWith("/" + LABEL + ".json")) {
            Map<String, Object> out = new LinkedHashMap<>();
            out.put("overwritten", ring.overwritten());
            out.put(events.key(), events.json());
            response.setContentType("application/json;charset=UTF-8");
            response.setHeader("Cache-Control", "no-store");
            response.getWriter().write(JsonText.of(out));
            return;
        }
        response.setContentType("text/html;charset=UTF-8");
        StringBuilder out = new StringBuilder();
        Html.heading(out, "Events (newest first; the last " + EventRing.CAPACITY + " are kept)");
        Html.liveScript(out, request, LABEL);
        events.html(out);
        response.getWriter().write(out.toString());
    }

    private Table table() {
        List<EventRing.Entry> entries = new ArrayList<>(ring.since(0));
        Collections.reverse(entries);
        List<List<Object>> rows = new ArrayList<>();
        for (EventRing.Entry e : entries) {
            rows.add(List.of(e.sequence(), e.time(), e.topic(), new LinkedHashMap<>(e.properties())));
        }
        return new Table("ipoib-events", "events", Table.columns("sequence", "#", "time", "Time", "topic", "Topic",
                "properties", "Properties"), rows, "no events yet");
    }
}
