package ipoib.verbs.loopback.fabric;

import java.util.ArrayList;
import java.util.List;

/**
 * An int-keyed map for lookups on the data path: reads are lock-free and allocation-free
 * (open addressing over a volatile snapshot), writes copy the table under a lock. Writes are
 * rare (queue pairs are created and destroyed), reads happen per packet.
 */
final class CopyOnWriteIntMap<V> {
    private static final int EMPTY = -1;

    private record Table(int[] keys, Object[] values, int size) {}

    private volatile Table table = new Table(newKeys(16), new Object[16], 0);

    private static int[] newKeys(int capacity) {
        int[] keys = new int[capacity];
        java.util.Arrays.fill(keys, EMPTY);
        return keys;
    }

    private static int slot(int key, int mask) {
        int h = key * 0x9E3779B9;
        return (h ^ (h >>> 16)) & mask;
    }

    @SuppressWarnings("unchecked")
    V get(int key) {
        Table t = table;
        int mask = t.keys.length - 1;
        for (int i = slot(key, mask); ; i = (i + 1) & mask) {
            int k = t.keys[i];
            if (k == key) {
                return (V) t.values[i];
            }
            if (k == EMPTY) {
                return null;
            }
        }
    }

    synchronized void put(int key, V value) {
        if (key < 0) {
            throw new IllegalArgumentException("negative key " + key);
        }
        Table t = table;
        int capacity = t.keys.length;
        while ((t.size + 1) * 2 > capacity) {
            capacity *= 2;
        }
        table = rebuild(t, capacity, key, value, false);
    }

    synchronized V remove(int key) {
        V old = get(key);
        if (old != null) {
            table = rebuild(table, table.keys.length, key, null, true);
        }
        return old;
    }

    @SuppressWarnings("unchecked")
    List<V> values() {
        Table t = table;
        List<V> out = new ArrayList<>(t.size);
        for (int i = 0; i < t.keys.length; i++) {
            if (t.keys[i] != EMPTY) {
                out.add((V) t.values[i]);
            }
        }
        return out;
    }

    private static Table rebuild(Table t, int capacity, int key, Object value, boolean removing) {
        int[] keys = newKeys(capacity);
        Object[] values = new Object[capacity];
        int mask = capacity - 1;
        int size = 0;
        for (int i = 0; i < t.keys.length; i++) {
            int k = t.keys[i];
            if (k != EMPTY && k != key) {
                size += insert(keys, values, mask, k, t.values[i]);
            }
        }
        if (!removing) {
            size += insert(keys, values, mask, key, value);
        }
        return new Table(keys, values, size);
    }

    private static int insert(int[] keys, Object[] values, int mask, int key, Object value) {
        for (int i = slot(key, mask); ; i = (i + 1) & mask) {
            if (keys[i] == EMPTY) {
                keys[i] = key;
                values[i] = value;
                return 1;
            }
        }
    }
}
