package ipoib.console.internal;

import org.osgi.service.metatype.annotations.AttributeDefinition;
import org.osgi.service.metatype.annotations.AttributeType;
import org.osgi.service.metatype.annotations.ObjectClassDefinition;

@ObjectClassDefinition(id = ConsoleAccess.PID, name = "ipoib console access",
        description = "Who may use the web console and /metrics, and where the HTTP service listens.")
public @interface ConsoleConfiguration {

    @AttributeDefinition(name = "User name", required = false,
            description = "With the password: the credentials clients other than 127.0.0.1/::1 must give (HTTP Basic). "
                    + "Empty: only local clients are served.")
    String username() default "";

    @AttributeDefinition(name = "Password", type = AttributeType.PASSWORD, required = false,
            description = "The password for the user name. There is no default password.")
    String password() default "";

    @AttributeDefinition(name = "Listen address", required = false,
            description = "Address the HTTP service binds to; empty keeps the launch setting (127.0.0.1). "
                    + "Any other than a loopback address needs the user name and password.")
    String host() default "";

    @AttributeDefinition(name = "Port", min = "0", max = "65535", required = false,
            description = "TCP port of the HTTP service; 0 keeps the launch setting (8080).")
    int port() default 0;
}
