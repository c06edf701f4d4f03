package ipoib.runtime;

import java.lang.reflect.Array;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.util.Collection;
import java.util.Map;

/**
 * A component's configuration annotation over a map of raw properties, converted as Declarative
 * Services converts them ({@code provider_target} reads {@code provider.target}; a missing
 * property, or an empty array for one value, gives the annotation's default). For checking a configuration that is not stored yet
 * with the same code the component runs; the map must have passed {@link ConfigCheck#check} first.
 */
public final class ConfigValues {
    private ConfigValues() {}

    /** The annotation {@code type} backed by {@code properties}. */
    public static <A> A of(Class<A> type, Map<String, ?> properties) {
        Object proxy = Proxy.newProxyInstance(type.getClassLoader(), new Class<?>[] {type}, (self, method, args) -> {
            if (method.getDeclaringClass() == Object.class) {
                return switch (method.getName()) {
                    case "hashCode" -> System.identityHashCode(self);
                    case "equals" -> self == args[0];
                    default -> type.getSimpleName() + properties;
                };
            }
            Object raw = properties.get(propertyName(method));
            // An empty array for one value reads as missing (a null would fail an int method).
            Object value = raw == null ? null : convert(raw, method.getReturnType());
            return value == null ? method.getDefaultValue() : value;
        });
        return type.cast(proxy);
    }

    /** DS's name mapping (OSGi Compendium 112.8.2.2): {@code _} → {@code .}, {@code __} → {@code _}, {@code $$} → {@code $}. */
    static String propertyName(Method method) {
        return method.getName().replace("__", "\u0000").replace('_', '.').replace('\u0000', '_').replace("$$", "$");
    }

    private static Object convert(Object raw, Class<?> to) {
        if (to.isArray()) {
            Object[] values = raw.getClass().isArray() ? toArray(raw)
                    : raw instanceof Collection<?> c ? c.toArray() : new Object[] {raw};
            Object out = Array.newInstance(to.getComponentType(), values.length);
            for (int i = 0; i < values.length; i++) {
                Array.set(out, i, convert(values[i], to.getComponentType()));
            }
            return out;
        }
        if (raw.getClass().isArray() || raw instanceof Collection<?>) {
            Object[] values = raw.getClass().isArray() ? toArray(raw) : ((Collection<?>) raw).toArray();
            return values.length == 0 ? null : convert(values[0], to);
        }
        String text = raw.toString().strip();
        if (to == String.class) {
            return raw.toString();
        } else if (to == int.class) {
            return raw instanceof Number n ? n.intValue() : Integer.decode(text);
        } else if (to == long.class) {
            return raw instanceof Number n ? n.longValue() : Long.decode(text);
        } else if (to == boolean.class) {
            return raw instanceof Boolean b ? b : Boolean.parseBoolean(text);
        } else if (to == double.class) {
            return raw instanceof Number n ? n.doubleValue() : Double.parseDouble(text);
        } else if (to == short.class) {
            return raw instanceof Number n ? n.shortValue() : Short.decode(text);
        } else if (to == byte.class) {
            return raw instanceof Number n ? n.byteValue() : Byte.decode(text);
        } else if (to == float.class) {
            return raw instanceof Number n ? n.floatValue() : Float.parseFloat(text);
        } else if (to == char.class) {
            return text.isEmpty() ? '\0' : text.charAt(0);
        }
        throw new IllegalArgumentException("no conversion to " + to.getName());
    }

    private static Object[] toArray(Object array) {
        Object[] out = new Object[Array.getLength(array)];
        for (int i = 0; i < out.length; i++) {
            out[i] = Array.get(array, i);
        }
        return out;
    }
}
