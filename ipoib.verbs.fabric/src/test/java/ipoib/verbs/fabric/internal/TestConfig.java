package ipoib.verbs.fabric.internal;

import java.lang.annotation.Annotation;
import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.List;
import org.osgi.service.log.Logger;

/** A configuration with chosen values and a Logger that records what it is told. */
final class TestConfig implements FabricConfiguration {
    String deviceFilter = ".*";
    int saTimeoutMillis = 1000;
    int saRetries = 3;
    String smKey = "0";
    String verbsLibrary = "libibverbs.so.1";
    String umadLibrary = "libibumad.so.3";

    @Override
    public String deviceFilter() {
        return deviceFilter;
    }

    @Override
    public int saTimeoutMillis() {
        return saTimeoutMillis;
    }

    @Override
    public int saRetries() {
        return saRetries;
    }

    @Override
    public String smKey() {
        return smKey;
    }

    @Override
    public String verbsLibrary() {
        return verbsLibrary;
    }

    @Override
    public String umadLibrary() {
        return umadLibrary;
    }

    @Override
    public Class<? extends Annotation> annotationType() {
        return FabricConfiguration.class;
    }

    /** Log lines as "level message". */
    static final class RecordingLog {
        final List<String> lines = new ArrayList<>();

        Logger logger() {
            return (Logger) Proxy.newProxyInstance(Logger.class.getClassLoader(), new Class<?>[] {Logger.class},
                    (proxy, method, args) -> {
                        if (args != null && args.length > 0 && args[0] instanceof String message) {
                            synchronized (lines) {
                                lines.add(method.getName() + " " + message);
                            }
                        }
                        return method.getReturnType() == boolean.class ? Boolean.TRUE : null;
                    });
        }

        FabricLog fabricLog() {
            return new FabricLog() {
                @Override
                public void info(String message) {
                    add("info " + message);
                }

                @Override
                public void warn(String message, Throwable cause) {
                    add("warn " + message);
                }

                @Override
                public void error(String message, Throwable cause) {
                    add("error " + message);
                }
            };
        }

        private void add(String line) {
            synchronized (lines) {
                lines.add(line);
            }
        }
    }
}
