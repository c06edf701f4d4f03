package ipoib.console.internal;

import org.osgi.service.metatype.annotations.AttributeDefinition;
import org.osgi.service.metatype.annotations.AttributeType;
import org.osgi.service.metatype.annotations.ObjectClassDefinition;

@ObjectClassDefinition(id = ConsoleAccess.PID, name = "ipoib console access",
        description = "Who may use the web console and /metrics, where the HTTP service listens, and how often "
                + "the console's pages redraw.")
public @interface ConsoleConfiguration {

    @AttributeDefinition(name = "User name", required = false,
            description = "With the password: the credentials every client must give (HTTP Basic). Empty: user "
                    + "'ipoib' with the password generated at the first start (launch property "
                    + "ipoib.console.passwordFile, default ~/.ipoib/console-password), for local clients only.")
    String username() default "";

    @AttributeDefinition(name = "Password", type = AttributeType.PASSWORD, required = false,
            description = "The password for the user name. Never stored: it is replaced by its salted hash "
                    + "(passwordHash) as soon as it is set. There is no default password.")
    String password() default "";

    @AttributeDefinition(name = "Password hash", required = false,
            description = "PBKDF2-HMAC-SHA256 hash of the password (pbkdf2-sha256$iterations$salt$hash), written "
                    + "when a password is set.")
    String passwordHash() default "";

    @AttributeDefinition(name = "Listen address", required = false,
            description = "Address the HTTP service binds to; empty keeps the launch setting (127.0.0.1). "
                    + "Any other than a loopback address needs the user name and password.")
    String host() default "";

    @AttributeDefinition(name = "Port", min = "0", max = "65535", required = false,
            description = "TCP port of the HTTP service; 0 keeps the launch setting (8080).")
    int port() default 0;

    @AttributeDefinition(name = "Host names", required = false,
            description = "DNS names clients may use in the Host header besides localhost and IP addresses "
                    + "(a browser page of another site that rebinds its name to this machine is refused).")
    String[] hostNames() default {};

    @AttributeDefinition(name = "Refresh interval (ms)", min = "200", max = "60000", required = false,
            description = "How often an open console page fetches its data and redraws its tables, texts, picture "
                    + "and chart, in milliseconds (200..60000). A page loaded after a change uses the new interval.")
    int refreshMillis() default ConsoleAccess.DEFAULT_REFRESH_MILLIS;
}
