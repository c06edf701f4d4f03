package ipoib.runtime;

import java.math.BigDecimal;
import java.util.List;
import java.util.Locale;

/**
 * One attribute of a metatype object class definition, as bnd writes it from an
 * {@code @AttributeDefinition}: the single declaration of the property's type, range and choices.
 *
 * @param id the property name
 * @param name the human-readable name
 * @param description what it means
 * @param type the metatype type (String, Long, Integer, Short, Char, Byte, Double, Float, Boolean, Password)
 * @param min the lowest value (numbers) or shortest length (strings), or null
 * @param max the highest value or longest length, or null
 * @param options the allowed values, empty when any is allowed
 * @param defaults the default value(s) as written, or null
 * @param cardinality 0 for a single value, else the most values allowed (negative: a list)
 */
public record ConfigAttribute(String id, String name, String description, String type, String min, String max,
        List<String> options, String defaults, int cardinality) {

    /** What is allowed, for messages and listings: {@code 10..60000}, {@code true or false}, {@code one of a, b}. */
    public String allowed() {
        if (!options.isEmpty()) {
            return "one of " + String.join(", ", options);
        }
        switch (type) {
            case "Boolean":
                return "true or false";
            case "String":
            case "Password":
                if (min != null || max != null) {
                    return "a text of " + (min == null ? "0" : min) + ".." + (max == null ? "any" : max) + " characters";
                }
                return "a text";
            default:
                return (min == null ? lowest() : min) + ".." + (max == null ? highest() : max)
                        + (isInteger() ? "" : " (a decimal number)");
        }
    }

    /** The problem with a value, or null when the value is allowed. */
    String problem(Object value) {
        if (value == null) {
            return "has no value: allowed " + allowed();
        }
        switch (type) {
            case "Boolean":
                if (value instanceof Boolean) {
                    return null;
                }
                String b = value.toString().strip().toLowerCase(Locale.ROOT);
                return b.equals("true") || b.equals("false") ? null : "is not a boolean: allowed true or false";
            case "String":
            case "Password":
            case "Char":
                return textProblem(value.toString());
            default:
                return numberProblem(value);
        }
    }

    private String textProblem(String text) {
        if (type.equals("Char") && text.length() != 1) {
            return "is not one character";
        }
        if (!options.isEmpty() && !options.contains(text.strip())) {
            return "is not allowed: allowed " + allowed();
        }
        if ((min != null && text.length() < Integer.parseInt(min)) || (max != null && text.length() > Integer.parseInt(max))) {
            return "has the wrong length " + text.length() + ": allowed " + allowed();
        }
        return null;
    }

    private String numberProblem(Object value) {
        BigDecimal n;
        if (value instanceof Number number) {
            n = new BigDecimal(number.toString());
        } else {
            try {
                n = new BigDecimal(value.toString().strip());
            } catch (NumberFormatException e) {
                return "is not a number: allowed " + allowed();
            }
        }
        if (isInteger() && n.stripTrailingZeros().scale() > 0) {
            return "is not a whole number: allowed " + allowed();
        }
        BigDecimal lo = new BigDecimal(min == null ? lowest() : min);
        BigDecimal hi = new BigDecimal(max == null ? highest() : max);
        if (n.compareTo(lo) < 0 || n.compareTo(hi) > 0) {
            return "is out of range: allowed " + allowed();
        }
        if (!options.isEmpty() && options.stream().noneMatch(o -> new BigDecimal(o).compareTo(n) == 0)) {
            return "is not allowed: allowed " + allowed();
        }
        return null;
    }

    private boolean isInteger() {
        return switch (type) {
            case "Long", "Integer", "Short", "Byte" -> true;
            default -> false;
        };
    }

    private String lowest() {
        return switch (type) {
            case "Long" -> Long.toString(Long.MIN_VALUE);
            case "Integer" -> Integer.toString(Integer.MIN_VALUE);
            case "Short" -> Short.toString(Short.MIN_VALUE);
            case "Byte" -> Byte.toString(Byte.MIN_VALUE);
            case "Float" -> new BigDecimal(-Float.MAX_VALUE).toPlainString();
            default -> new BigDecimal(-Double.MAX_VALUE).toPlainString();
        };
    }

    private String highest() {
        return switch (type) {
            case "Long" -> Long.toString(Long.MAX_VALUE);
            case "Integer" -> Integer.toString(Integer.MAX_VALUE);
            case "Short" -> Short.toString(Short.MAX_VALUE);
            case "Byte" -> Byte.toString(Byte.MAX_VALUE);
            case "Float" -> new BigDecimal(Float.MAX_VALUE).toPlainString();
            default -> new BigDecimal(Double.MAX_VALUE).toPlainString();
        };
    }
}
