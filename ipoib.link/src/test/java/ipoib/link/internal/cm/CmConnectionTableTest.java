package ipoib.link.internal.cm;

import static org.junit.jupiter.api.Assertions.assertEquals;

import ipoib.api.Gid;
import org.junit.jupiter.api.Test;

class CmConnectionTableTest {
    private final CmConnectionTable table = new CmConnectionTable(null);

    private CmLinkConnection connection(CmLinkConnection.State state, String why) {
        CmLinkConnection c = new CmLinkConnection(true, null, null, 0x48, 2, Gid.fromBytes(new byte[16]), 0);
        c.state = state;
        c.why = why;
        return c;
    }

    /** The DREP of the disconnect that follows a failed send leaves the connection FAILED, with its reason. */
    @Test
    void aFailedConnectionStaysFailedWhenTheDisconnectAfterItsFailureCompletes() {
        CmLinkConnection c = connection(CmLinkConnection.State.FAILED, "send failed: RETRY_EXCEEDED");
        table.end(c, "disconnected by the peer");
        assertEquals(CmLinkConnection.State.FAILED, c.state);
        assertEquals("send failed: RETRY_EXCEEDED", c.why);
    }

    /** An established connection the peer disconnects is over. */
    @Test
    void anEstablishedConnectionThePeerDisconnectsIsClosed() {
        CmLinkConnection c = connection(CmLinkConnection.State.UP, "");
        table.end(c, "disconnected by the peer");
        assertEquals(CmLinkConnection.State.CLOSED, c.state);
        assertEquals("disconnected by the peer", c.why);
    }
}
