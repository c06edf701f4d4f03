package ipoib.netdev.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.lang.foreign.MemorySegment;
import org.junit.jupiter.api.Test;

/** The read buffers a polling thread shares among its devices: the views by header length, and the slices by length. */
class ReadBuffersTest {
    private final ReadBuffers buffers = new ReadBuffers();

    @Test
    void aDeviceWithOffloadReadsItsHeaderBeforeThePacketAndOneWithoutReadsThePacketAlone() {
        ReadBuffers.View plain = buffers.view(0);
        ReadBuffers.View offload = buffers.view(VnetHeader.LENGTH);
        assertEquals(Bridge.READ_CAPACITY, plain.capacity());
        assertEquals(VnetHeader.LENGTH + Bridge.READ_CAPACITY, offload.capacity());
        assertEquals(plain.address(), plain.packets().buffer.address());
        assertEquals(offload.address() + VnetHeader.LENGTH, offload.packets().buffer.address());
        assertSame(plain.segments(), offload.segments());
        assertSame(plain, buffers.view(0));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> buffers.view(4));
        assertEquals("device header of 4 octets: allowed 0 or 10", e.getMessage());
    }

    @Test
    void everyLengthHasOneSliceFromTheStartOfTheBuffer() {
        ReadBuffers.Slices slices = buffers.view(0).packets();
        for (int length : new int[] {0, 1, 1023, 1024, 1025, 2044, 65535, Bridge.READ_CAPACITY}) {
            MemorySegment s = slices.of(length);
            assertEquals(length, s.byteSize());
            assertEquals(slices.buffer.address(), s.address());
            assertSame(s, slices.of(length), "made once per length");
        }
    }
}
