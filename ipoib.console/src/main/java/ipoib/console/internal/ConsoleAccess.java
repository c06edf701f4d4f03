package ipoib.console.internal;

import ipoib.runtime.ConfigCheck;
import ipoib.runtime.ShownValue;
import ipoib.runtime.config.LastGoodConfiguration;

import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Dictionary;
import java.util.HashMap;
import java.util.Hashtable;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import org.osgi.framework.BundleContext;
import org.osgi.service.cm.Configuration;
import org.osgi.service.cm.ConfigurationAdmin;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Modified;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.log.Logger;
import org.osgi.service.log.LoggerFactory;
import org.osgi.service.metatype.annotations.Designate;
import org.osgi.service.servlet.whiteboard.Preprocessor;

/**
 * The console's access policy for every request the HTTP service gets (a whiteboard
 * preprocessor, so it covers the Web Console, its plugins and /metrics alike): credentials, the
 * Host header, the origin and the anti-forgery token of state-changing requests; and the listen
 * address: binding to a non-loopback address is refused while no credentials are configured. A
 * password set in the configuration is replaced there by its salted hash at once, and the
 * framework's storage (where ConfigAdmin keeps configurations) is made 0700.
 */
@Component(configurationPid = ConsoleAccess.PID, service = {Preprocessor.class, ConsoleAccess.class}, immediate = true)
@Designate(ocd = ConsoleConfiguration.class)
public final class ConsoleAccess implements Preprocessor {

    static final String PID = "ipoib.console";
    /** Request attribute: the user the policy let in ("local" for a loopback client when that door is open). */
    static final String USER_ATTRIBUTE = "ipoib.console.user";
    /**
     * Request attribute: the anti-forgery token, for the project's plugins in other bundles (the
     * loopback's Fabric page) to put in their forms.
     */
    static final String TOKEN_ATTRIBUTE = "ipoib.console.token";
    static final String CONSOLE_PREFIX = "/system/console";
    static final String HTTP_PID = "org.apache.felix.http";
    static final String HOST_PROPERTY = "org.apache.felix.http.host";
    static final String PORT_PROPERTY = "org.osgi.service.http.port";
    static final int DEFAULT_REFRESH_MILLIS = 2000;

    private final PrintStream err = new PrintStream(new FileOutputStream(FileDescriptor.err), true, StandardCharsets.UTF_8);
    private final BundleContext context;
    private final ConfigurationAdmin configAdmin;
    private final Logger log;
    private final AccessPolicy.OpenDoors doors;
    private volatile AccessPolicy policy;
    private volatile int refreshMillis = DEFAULT_REFRESH_MILLIS;
    private boolean toldGenerated;
    private final LastGoodConfiguration lastGood;

    @Activate
    public ConsoleAccess(BundleContext context, ConsoleConfiguration config, Map<String, Object> properties,
                         @Reference ConfigurationAdmin configAdmin,
                         @Reference(service = LoggerFactory.class) Logger log) {
        this.context = context;
        this.configAdmin = configAdmin;
        this.log = log;
        this.doors = new AccessPolicy.OpenDoors(
                Boolean.parseBoolean(context.getProperty(AccessPolicy.OpenDoors.LOOPBACK_PROPERTY)),
                Boolean.parseBoolean(context.getProperty(AccessPolicy.OpenDoors.METRICS_PROPERTY)));
        StorageProtection.restrict(context, log);
        this.lastGood = new LastGoodConfiguration(log::warn);
        lastGood.admin(configAdmin);
        modified(config, properties);
    }

    /**
     * The refusal of a configuration, or null when it is allowed: the metatype first (a port of
     * 70000 or "abc" would otherwise become something else), then a non-loopback listen address
     * without credentials.
     */
    static String refusal(Map<String, ?> properties) {
        String problems = ConfigCheck.of(PID, ConsoleAccess.class.getClassLoader()).problems(properties);
        if (problems != null) {
            return problems;
        }
        Object hash = properties.get("passwordHash");
        if (hash != null && !hash.toString().isBlank()) {
            try {
                PasswordHash.parse(hash.toString());
            } catch (IllegalArgumentException e) {
                return "invalid ipoib.console property 'passwordHash': allowed " + e.getMessage();
            }
        }
        String host = text(properties.get("host"));
        boolean credentials = !text(properties.get("username")).isEmpty()
                && (!text(properties.get("password")).isEmpty() || !text(properties.get("passwordHash")).isEmpty());
        if (!host.isEmpty() && !AccessPolicy.isLoopbackHost(host) && !credentials) {
            return "invalid ipoib.console property 'host' value " + ShownValue.of(host) + ": a non-loopback address "
                    + "needs 'username' and 'password' (no default password is accepted); allowed without them: "
                    + "127.0.0.1, ::1, localhost";
        }
        return null;
    }

    /**
     * Replaces a clear-text {@code password} of the properties by its {@code passwordHash}, so that
     * ConfigAdmin never keeps the password itself; whether there was one (an empty one is no password).
     */
    static boolean hashPassword(Map<String, Object> properties) {
        Object password = properties.get("password");
        if (password == null || password.toString().isEmpty()) {
            return false;
        }
        properties.remove("password");
        properties.put("passwordHash", PasswordHash.of(password.toString()).text());
        return true;
    }

    private static String text(Object value) {
        return value == null ? "" : value.toString().strip();
    }

    /**
     * A new configuration. A refused one changes nothing (not the credentials, not the listen
     * address; the configuration in force is stored again), so that a refused {@code host} cannot
     * come into force later with other values; not thrown, since a component that fails would take
     * the access policy down with it.
     */
    @Modified
    void modified(ConsoleConfiguration config, Map<String, Object> properties) {
        String refused = refusal(properties);
        if (refused != null) {
            if (policy == null) {
                // Local clients with the generated password only, on the launch address.
                policy = new AccessPolicy(generated(), doors, Set.of());
            }
            lastGood.refused(properties, refused);
            return;
        }
        Map<String, Object> stored = new HashMap<>(properties);
        if (hashPassword(stored)) {
            // Set through the Web Console's form or ConfigAdmin: stored again without it.
            store(stored);
        }
        Object hashText = stored.get("passwordHash");
        String user = config.username() == null ? "" : config.username().strip();
        AccessPolicy.Credentials credentials = !user.isEmpty() && hashText != null && !hashText.toString().isBlank()
                ? new AccessPolicy.Credentials(user, PasswordHash.parse(hashText.toString()), true) : generated();
        policy = new AccessPolicy(credentials, doors, Set.of(config.hostNames()));
        refreshMillis = config.refreshMillis();
        // What is in force, the password as its hash: a refused update is stored back to this.
        lastGood.accepted(stored);
        bind(text(config.host()), config.port());
    }

    private void store(Map<String, Object> properties) {
        try {
            Configuration c = configAdmin.getConfiguration(PID, "?");
            Hashtable<String, Object> next = new Hashtable<>();
            properties.forEach((k, v) -> {
                if (!k.equals("service.pid") && !k.equals("component.name") && !k.equals("component.id") && v != null) {
                    next.put(k, v);
                }
            });
            c.update(next);
        } catch (IOException e) {
            log.error("cannot replace the console password by its hash: " + e.getMessage());
        }
    }

    /** The generated credentials, made at the first start; null (nobody gets in) when the file is unusable. */
    private AccessPolicy.Credentials generated() {
        try {
            GeneratedPassword g = GeneratedPassword.load(GeneratedPassword.file(context::getProperty));
            synchronized (this) {
                if (!toldGenerated) {
                    toldGenerated = true;
                    err.println("ipoib: web console user '" + GeneratedPassword.USER + "', password '" + g.password()
                            + "' (kept in " + g.file() + ", readable by " + System.getProperty("user.name")
                            + " only; ipoib:config ipoib.console username <name> password <password> sets your own)");
                }
            }
            return new AccessPolicy.Credentials(GeneratedPassword.USER, PasswordHash.ofRandom(g.password()), false);
        } catch (IOException e) {
            log.error(e.getMessage() + "; the console refuses every request until it is fixed or credentials are "
                    + "configured");
            return null;
        }
    }
    private void bind(String host, int port) {
        if (host.isEmpty() && port == 0) {
            return;
        }
        try {
            Configuration http = configAdmin.getConfiguration(HTTP_PID, "?");
            Dictionary<String, Object> props = http.getProperties();
            Hashtable<String, Object> next = new Hashtable<>();
            if (props != null) {
                for (var keys = props.keys(); keys.hasMoreElements();) {
                    String k = keys.nextElement();
                    next.put(k, props.get(k));
                }
            }
            next.put(HOST_PROPERTY, host.isEmpty() ? launchHost() : host);
            next.put(PORT_PROPERTY, port == 0 ? launchPort() : Integer.toString(port));
            // The HTTP service restarts on a new configuration: only a real change is written.
            Object currentHost = props != null && props.get(HOST_PROPERTY) != null ? props.get(HOST_PROPERTY) : launchHost();
            Object currentPort = props != null && props.get(PORT_PROPERTY) != null ? props.get(PORT_PROPERTY) : launchPort();
            if (!Objects.equals(String.valueOf(currentHost), next.get(HOST_PROPERTY))
                    || !Objects.equals(String.valueOf(currentPort), next.get(PORT_PROPERTY))) {
                http.update(next);
            }
        } catch (IOException e) {
            log.error("cannot configure the HTTP service: " + e.getMessage());
        }
    }

    private String launchHost() {
        String h = context.getProperty(HOST_PROPERTY);
        return h == null ? "127.0.0.1" : h;
    }

    private String launchPort() {
        String p = context.getProperty(PORT_PROPERTY);
        return p == null ? "8080" : p;
    }

    AccessPolicy policy() {
        return policy;
    }

    /** How often the pages redraw, as configured ({@link ConsoleConfiguration#refreshMillis}). */
    int refreshMillis() {
        return refreshMillis;
    }

    @Override
    public void doFilter(ServletRequest req, ServletResponse res, FilterChain chain) throws IOException, ServletException {
        HttpServletRequest request = (HttpServletRequest) req;
        HttpServletResponse response = (HttpServletResponse) res;
        String path = RequestPath.normalise(request.getRequestURI());
        AccessPolicy.Decision decision = policy.decide(new AccessPolicy.Request(request.getRemoteAddr(),
                request.getHeader("Authorization"), request.getMethod(), path, request.getHeader("Origin"),
                request.getHeader("Referer"), request.getHeader("Host"), request.getHeader("Sec-Fetch-Site")));
        if (!decision.allowed()) {
            if (decision.status() == 401) {
                response.setHeader("WWW-Authenticate", "Basic realm=\"ipoib console\", charset=\"UTF-8\"");
            }
            refuse(response, decision.status(), decision.reason());
            return;
        }
        if (!AccessPolicy.isSafe(request.getMethod()) && !AntiForgery.valid(request)) {
            refuse(response, 403, request.getMethod() + " refused: the anti-forgery token (form field "
                    + AntiForgery.FIELD + " or header " + AntiForgery.HEADER + ") is missing or wrong; reload the page");
            return;
        }
        request.setAttribute(USER_ATTRIBUTE, decision.user());
        request.setAttribute(TOKEN_ATTRIBUTE, AntiForgery.token());
        if (request.getMethod().equalsIgnoreCase("GET") && path != null && path.startsWith(CONSOLE_PREFIX)) {
            TokenPageRequest pageRequest = new TokenPageRequest(request);
            TokenPageResponse page = new TokenPageResponse(pageRequest, response, AntiForgery.token());
            pageRequest.page(page);
            chain.doFilter(pageRequest, page);
            if (!pageRequest.isAsyncStarted()) {
                page.finish(); // else when the servlet completes its AsyncContext
            }
            return;
        }
        chain.doFilter(req, res);
    }

    private static void refuse(HttpServletResponse response, int status, String reason) throws IOException {
        response.setStatus(status);
        response.setContentType("text/plain;charset=UTF-8");
        response.getWriter().println(reason);
    }
}
