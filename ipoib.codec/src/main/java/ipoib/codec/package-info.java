/**
 * Shared pieces of the codecs: the one decode error every decoder throws on bad input, and
 * big-endian access to caller-owned {@link java.lang.foreign.MemorySegment}s.
 *
 * <p>Every codec of this bundle reads and writes at an offset in a buffer the caller owns and
 * allocates nothing on the data path. Decoders never throw anything but
 * {@link ipoib.codec.DecodeException}; encoders throw {@link java.lang.IndexOutOfBoundsException}
 * when the caller's buffer is too small (a programming error, not bad input).
 */
@Export
@Version("1.1.0")
package ipoib.codec;

import org.osgi.annotation.bundle.Export;
import org.osgi.annotation.versioning.Version;
