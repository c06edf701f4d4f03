package ipoib.link.internal.cm;

import static org.junit.jupiter.api.Assertions.assertEquals;

import ipoib.api.metrics.Metric;
import ipoib.api.metrics.MetricSink;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class CmMetricsTest {

    @Test
    void theAgentsMessagesAreOneFamilyByDirectionAndKindItsDropsOneByReason() {
        List<String> written = new ArrayList<>();
        MetricSink sink = (Metric m, long v, String... labels) -> written.add(m.name() + List.of(labels) + "=" + v);
        CmMetrics.agent(sink, Map.of("sent_req", 2L, "received_rep", 1L, "unmatched", 3L, "retransmitted", 4L,
                "loop_failures", 0L), "loop0", "1");
        assertEquals(List.of("ipoib_cm_agent_task_failures_total[loop0, 1]=0",
                "ipoib_cm_agent_messages_total[loop0, 1, received, rep]=1",
                "ipoib_cm_agent_retransmissions_total[loop0, 1]=4",
                "ipoib_cm_agent_messages_total[loop0, 1, sent, req]=2",
                "ipoib_cm_agent_drops_total[loop0, 1, unmatched]=3"), written);
    }
}
