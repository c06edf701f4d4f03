package ipoib.console.internal;

import jakarta.servlet.Servlet;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;

/** The Web Console's Events page: the events ring, newest first. */
@Component(service = Servlet.class, property = {
        "felix.webconsole.label=ipoib-events",
        "felix.webconsole.title=Events",
        "felix.webconsole.category=IPoIB"})
public final class EventsPlugin extends HttpServlet {
    private static final long serialVersionUID = 1L;

    @Reference
    private EventRing ring;

    @Override
    protected void doGet(HttpServletRequest request, HttpServletResponse response) throws IOException {
        response.setContentType("text/html;charset=UTF-8");
        List<EventRing.Entry> entries = new ArrayList<>(ring.since(0));
        java.util.Collections.reverse(entries);
        List<List<Object>> rows = new ArrayList<>();
        for (EventRing.Entry e : entries) {
            StringBuilder props = new StringBuilder();
            e.properties().forEach((k, v) -> props.append(k).append('=').append(v).append("  "));
            rows.add(List.of(e.sequence(), e.time(), e.topic(), props.toString().strip()));
        }
        StringBuilder out = new StringBuilder();
        Html.heading(out, "Events (newest first; the last " + EventRing.CAPACITY + " are kept, "
                + ring.overwritten() + " overwritten)");
        Html.table(out, "ipoib-events", List.of("#", "Time", "Topic", "Properties"), rows, "no events yet");
        response.getWriter().write(out.toString());
    }
}
