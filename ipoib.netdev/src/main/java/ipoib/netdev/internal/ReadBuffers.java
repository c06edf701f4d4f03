package ipoib.netdev.internal;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * What a thread reading devices reads into, one set per reading thread (the {@link Bridge}'s
 * pollers) instead of one per device: a packet of up to {@value Bridge#READ_CAPACITY} octets after
 * the device's header, and with offload a second buffer in which the packets cut from a large one
 * are built. The packet is handed on as a slice of its exact length, made once per length.
 */
final class ReadBuffers {
    private final MemorySegment whole;
    private final Slices segments;
    private final View plain;
    private final View withHeader;

    ReadBuffers() {
        Arena arena = Arena.ofAuto();
        this.whole = arena.allocate(VnetHeader.LENGTH + Bridge.READ_CAPACITY, 8);
        this.segments = new Slices(arena.allocate(Bridge.READ_CAPACITY, 8));
        this.plain = make(0);
        this.withHeader = make(VnetHeader.LENGTH);
    }

    private View make(int headerLength) {
        MemorySegment read = whole.asSlice(0, headerLength + Bridge.READ_CAPACITY);
        return new View(read, read.address(), (int) read.byteSize(),
                new Slices(read.asSlice(headerLength)), segments);
    }

    /** The buffers for a device whose packets follow a header of {@code headerLength} octets (0 or the VnetHeader's). */
    View view(int headerLength) {
        return switch (headerLength) {
            case 0 -> plain;
            case VnetHeader.LENGTH -> withHeader;
            default -> throw new IllegalArgumentException("device header of " + headerLength + " octets: allowed 0 or "
                    + VnetHeader.LENGTH);
        };
    }

    /** What a read fills (header, then packet), its address and size, the packet's slices, and the segments' buffer. */
    record View(MemorySegment readBuffer, long address, int capacity, Slices packets, Slices segments) {}

    /**
     * A buffer and its slices: from offset 0, one per length, made when first asked for (none per
     * packet after); elsewhere ({@link #at}), one per 64 octets of offset, kept while the same is asked for.
     */
    static final class Slices {
        private static final int PAGE = 1024;
        /** The granularity of {@link #at}'s slices: less than the smallest segment cut in place. */
        private static final int OFFSET_GRAIN = 64;
        final MemorySegment buffer;
        /** By length / PAGE, then length % PAGE: only the pages of lengths seen take memory. */
        private final MemorySegment[][] byLength;
        /** By offset / OFFSET_GRAIN: the last slice asked for there, made when first needed. */
        private MemorySegment[] byOffset;

        Slices(MemorySegment buffer) {
            this.buffer = buffer;
            this.byLength = new MemorySegment[(int) (Math.min(buffer.byteSize(), Bridge.READ_CAPACITY) / PAGE) + 1][];
        }

        /**
         * The slice of {@code length} octets at {@code offset}: the segments a cut builds in place
         * ({@link Segmentation#tcp}), at multiples of one segment size, so that the slices of a
         * flow's cuts are made once and found again.
         */
        MemorySegment at(long offset, int length) {
            if (offset == 0) {
                return of(length);
            }
            if (byOffset == null) {
                byOffset = new MemorySegment[(int) (buffer.byteSize() / OFFSET_GRAIN) + 1];
            }
            int slot = (int) (offset / OFFSET_GRAIN);
            MemorySegment s = byOffset[slot];
            if (s == null || s.address() != buffer.address() + offset || s.byteSize() != length) {
                s = buffer.asSlice(offset, length);
                byOffset[slot] = s;
            }
            return s;
        }

        MemorySegment of(int length) {
            MemorySegment[] page = byLength[length / PAGE];
            if (page == null) {
                page = new MemorySegment[PAGE];
                byLength[length / PAGE] = page;
            }
            MemorySegment s = page[length % PAGE];
            if (s == null) {
                s = buffer.asSlice(0, length);
                page[length % PAGE] = s;
            }
            return s;
        }
    }
}
