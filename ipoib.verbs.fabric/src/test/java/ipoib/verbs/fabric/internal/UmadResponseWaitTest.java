package ipoib.verbs.fabric.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.ByteBuffer;
import org.junit.jupiter.api.Test;

/**
 * Which sends wait in the kernel for a response: Linux hands a response to a umad agent only
 * when a send of it still waits (ib_mad.c ib_find_send_mad needs a timeout), except RMPP
 * segments of an agent without kernel RMPP. Requests wait (here 900 ms, nine tenths of a client
 * timeout of 1 s); responses and RMPP control MADs, which get no answer, do not.
 */
class UmadResponseWaitTest {

    private static ByteBuffer mad(int method, int rmppFlags) {
        ByteBuffer b = ByteBuffer.allocate(256);
        b.put(0, (byte) 1).put(1, (byte) 3).put(2, (byte) 2).put(3, (byte) method).put(26, (byte) rmppFlags);
        return b;
    }

    @Test
    void requestsWaitForTheirResponseAndNothingElseDoes() {
        assertEquals(900, UmadTransport.kernelResponseWait(mad(0x01, 0), 900), "Get");
        assertEquals(900, UmadTransport.kernelResponseWait(mad(0x02, 0), 900), "Set");
        assertEquals(900, UmadTransport.kernelResponseWait(mad(0x12, 0), 900), "GetTable");
        assertEquals(900, UmadTransport.kernelResponseWait(mad(0x15, 0), 900), "Delete");
        assertEquals(0, UmadTransport.kernelResponseWait(mad(0x12, 0x01), 900), "an RMPP ACK (GetTable, Active)");
        assertEquals(0, UmadTransport.kernelResponseWait(mad(0x86, 0), 900), "ReportResp");
        ByteBuffer offset = ByteBuffer.allocate(300);
        offset.position(10);
        offset.put(13, (byte) 0x86);
        assertEquals(0, UmadTransport.kernelResponseWait(offset, 900), "read from the buffer's position");
    }
}
