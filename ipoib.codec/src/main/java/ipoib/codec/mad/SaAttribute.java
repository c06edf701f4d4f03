package ipoib.codec.mad;

import ipoib.codec.DecodeException;
import java.lang.foreign.MemorySegment;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * One attribute of subnet administration, described once: its attribute ID, its name (as IBA and
 * OpenSM's log spell it), the length of one record, the distance between records in a GetTable
 * answer, the type that holds its components and that type's codec. The SA client, the loopback
 * SA and the test hosts that drive a real SA find everything they need about an attribute here,
 * so that an attribute is added by its record type, one descriptor and the SA's rules for it.
 *
 * @param <R> the record type, whose fields are the attribute's components (and whose CM_*
 *            constants are its component mask bits)
 * @param id the attribute ID (IBA 15.2.5 table 206, 13.4.8)
 * @param name the attribute's name, e.g. {@code "PathRecord"}
 * @param length octets of one record
 * @param tableStride octets from one record to the next in a GetTable answer (a multiple of 8:
 *                    AttributeOffset counts 8-octet words), 0 for an attribute no table carries
 * @param type the record type
 * @param encoder writes a record at an offset
 * @param decoder reads a record at an offset
 * @since 1.1
 */
public record SaAttribute<R>(int id, String name, int length, int tableStride, Class<R> type, Encoder<R> encoder,
                             Decoder<R> decoder) {

    /** Writes a record at an offset of a caller-owned segment. */
    @FunctionalInterface
    public interface Encoder<R> {
        void encode(R record, MemorySegment segment, long offset);
    }

    /** Reads a record at an offset; throws only {@link DecodeException} on bad input. */
    @FunctionalInterface
    public interface Decoder<R> {
        R decode(MemorySegment segment, long offset) throws DecodeException;
    }

    /** ClassPortInfo (IBA 13.4.8.1): what the SA supports; Get only. */
    public static final SaAttribute<ClassPortInfo> CLASS_PORT_INFO = new SaAttribute<>(MadAttribute.CLASS_PORT_INFO,
            "ClassPortInfo", ClassPortInfo.LENGTH, 0, ClassPortInfo.class, ClassPortInfo::encode, ClassPortInfo::decode);
    /** Notice (IBA 13.4.8.2): the body of a Report. */
    public static final SaAttribute<Notice> NOTICE = new SaAttribute<>(MadAttribute.NOTICE, "Notice", Notice.LENGTH, 0,
            Notice.class, Notice::encode, Notice::decode);
    /** InformInfo (IBA 13.4.8.3): a trap subscription, sent with Set. */
    public static final SaAttribute<InformInfo> INFORM_INFO = new SaAttribute<>(MadAttribute.INFORM_INFO,
            "InformInfo", InformInfo.LENGTH, 0, InformInfo.class, InformInfo::encode, InformInfo::decode);
    /** PathRecord (IBA 15.2.5.16): 64 octets, also 64 apart in tables. */
    public static final SaAttribute<SaPathRecord> PATH_RECORD = new SaAttribute<>(MadAttribute.PATH_RECORD,
            "PathRecord", SaPathRecord.LENGTH, SaPathRecord.LENGTH, SaPathRecord.class, SaPathRecord::encode,
            SaPathRecord::decode);
    /** MCMemberRecord (IBA 15.2.5.17): 52 octets, padded to 56 in tables. */
    public static final SaAttribute<SaMcMemberRecord> MC_MEMBER_RECORD = new SaAttribute<>(
            MadAttribute.MC_MEMBER_RECORD, "MCMemberRecord", SaMcMemberRecord.LENGTH, SaMcMemberRecord.TABLE_STRIDE,
            SaMcMemberRecord.class, SaMcMemberRecord::encode, SaMcMemberRecord::decode);

    /** Every attribute this codec describes. */
    public static final List<SaAttribute<?>> ALL = List.of(CLASS_PORT_INFO, NOTICE, INFORM_INFO, PATH_RECORD,
            MC_MEMBER_RECORD);

    public SaAttribute {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(type, "type");
        Objects.requireNonNull(encoder, "encoder");
        Objects.requireNonNull(decoder, "decoder");
        if (length < 1 || length > SaMad.DATA_LENGTH) {
            throw new IllegalArgumentException(name + ": record length " + length + " outside 1.."
                    + SaMad.DATA_LENGTH);
        }
        if (tableStride != 0 && (tableStride < length || tableStride % 8 != 0)) {
            throw new IllegalArgumentException(name + ": table stride " + tableStride
                    + " must be 0 or a multiple of 8 no smaller than the record length " + length);
        }
    }

    /** The attribute with this ID, if this codec describes it. */
    public static Optional<SaAttribute<?>> byId(int id) {
        for (SaAttribute<?> a : ALL) {
            if (a.id == id) {
                return Optional.of(a);
            }
        }
        return Optional.empty();
    }

    /**
     * The attribute with this name.
     *
     * @throws IllegalArgumentException naming the attributes there are, when none has the name
     */
    public static SaAttribute<?> byName(String name) {
        for (SaAttribute<?> a : ALL) {
            if (a.name.equals(name)) {
                return a;
            }
        }
        throw new IllegalArgumentException("no SA attribute '" + name + "': known are "
                + ALL.stream().map(SaAttribute::name).toList());
    }

    /** The name of an attribute ID: the described name, else {@code "attribute 0x0031"}. */
    public static String nameOf(int id) {
        return byId(id).map(SaAttribute::name).orElse(String.format("attribute 0x%04x", id));
    }

    /** Writes the record at an offset. */
    public void encode(R record, MemorySegment segment, long offset) {
        encoder.encode(record, segment, offset);
    }

    /** Reads a record at an offset. */
    public R decode(MemorySegment segment, long offset) throws DecodeException {
        return decoder.decode(segment, offset);
    }

    /** The record's {@link #length} octets. */
    public byte[] toBytes(R record) {
        byte[] bytes = new byte[length];
        encode(record, MemorySegment.ofArray(bytes), 0);
        return bytes;
    }

    /** A record from its octets (at least {@link #length}). */
    public R fromBytes(byte[] bytes) throws DecodeException {
        return decode(MemorySegment.ofArray(bytes), 0);
    }
}
