package ipoib.runtime;

import java.util.List;

/** A configuration refused by {@link ConfigCheck}: the message names each property, value and what is allowed. */
public final class ConfigRefusedException extends IllegalArgumentException {
    private static final long serialVersionUID = 1L;
    private final List<String> problems;

    ConfigRefusedException(List<String> problems) {
        super(String.join("; ", problems));
        this.problems = List.copyOf(problems);
    }

    /** One line per refused property. */
    public List<String> problems() {
        return problems;
    }
}
