package ipoib.api.verbs;

import ipoib.api.PKey;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * A snapshot of a port's P_Key table (IBA 10.9.2). Slots may hold the invalid P_Key 0x0000 (or
 * 0x8000); indices are the hardware's, as a queue pair is configured with a P_Key index.
 */
public final class PKeyTable {
    private final int[] entries;

    private PKeyTable(int[] entries) {
        this.entries = entries;
    }

    /**
     * A table from raw 16-bit entries.
     *
     * @throws IllegalArgumentException for entries beyond 16 bits
     */
    public static PKeyTable of(int... entries) {
        int[] copy = entries.clone();
        for (int i = 0; i < copy.length; i++) {
            if (copy[i] < 0 || copy[i] > 0xFFFF) {
                throw new IllegalArgumentException("invalid P_Key table entry " + i + " '" + copy[i] + "': allowed 0..0xFFFF");
            }
        }
        return new PKeyTable(copy);
    }

    /** A table holding these keys at indices 0, 1, ... */
    public static PKeyTable of(List<PKey> keys) {
        return new PKeyTable(keys.stream().mapToInt(PKey::value).toArray());
    }

    /** Number of slots. */
    public int size() {
        return entries.length;
    }

    /** The key at an index, empty for an invalid slot or an index beyond the table. */
    public Optional<PKey> get(int index) {
        if (index < 0 || index >= entries.length || (entries[index] & 0x7FFF) == 0) {
            return Optional.empty();
        }
        return Optional.of(new PKey(entries[index]));
    }

    /** The index of exactly this key (partition and membership), or empty. */
    public OptionalInt indexOf(PKey key) {
        for (int i = 0; i < entries.length; i++) {
            if (entries[i] == key.value()) {
                return OptionalInt.of(i);
            }
        }
        return OptionalInt.empty();
    }

    /** The index of the first key of the same partition, full or limited. */
    public OptionalInt indexOfPartition(PKey key) {
        for (int i = 0; i < entries.length; i++) {
            if ((entries[i] & 0x7FFF) == key.base()) {
                return OptionalInt.of(i);
            }
        }
        return OptionalInt.empty();
    }

    /** The valid keys, in index order. */
    public List<PKey> keys() {
        List<PKey> keys = new ArrayList<>();
        for (int e : entries) {
            if ((e & 0x7FFF) != 0) {
                keys.add(new PKey(e));
            }
        }
        return keys;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof PKeyTable t && Arrays.equals(entries, t.entries);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(entries);
    }

    @Override
    public String toString() {
        return keys().toString();
    }
}
