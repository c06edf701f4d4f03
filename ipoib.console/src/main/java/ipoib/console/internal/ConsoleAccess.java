package ipoib.console.internal;

import ipoib.runtime.ConfigCheck;

import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.util.Dictionary;
import java.util.Hashtable;
import java.util.Map;
import java.util.Objects;
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
 * preprocessor, so it covers the Web Console, its plugins and /metrics alike), and the listen
 * address: binding to a non-loopback address is refused while no credentials are configured.
 */
@Component(configurationPid = ConsoleAccess.PID, service = {Preprocessor.class, ConsoleAccess.class}, immediate = true)
@Designate(ocd = ConsoleConfiguration.class)
public final class ConsoleAccess implements Preprocessor {

    static final String PID = "ipoib.console";
    /** Request attribute: the user the policy let in ("local" for a loopback client). */
    static final String USER_ATTRIBUTE = "ipoib.console.user";
    /**
     * Request attribute: the anti-forgery token, for the project's plugins in other bundles (the
     * loopback's Fabric page) to put in their forms.
     */
    static final String TOKEN_ATTRIBUTE = "ipoib.console.token";
    /**
     * The project's plugins: their labels start with {@code ipoib}; a state-changing request to
     * them must carry the anti-forgery token.
     */
    static final String PROTECTED_PREFIX = "/system/console/ipoib";
    static final String HTTP_PID = "org.apache.felix.http";
    static final String HOST_PROPERTY = "org.apache.felix.http.host";
    static final String PORT_PROPERTY = "org.osgi.service.http.port";

    private final BundleContext context;
    private final ConfigurationAdmin configAdmin;
    private final Logger log;
    private volatile AccessPolicy policy;

    @Activate
    public ConsoleAccess(BundleContext context, ConsoleConfiguration config, Map<String, Object> properties,
                         @Reference ConfigurationAdmin configAdmin,
                         @Reference(service = LoggerFactory.class) Logger log) {
        this.context = context;
        this.configAdmin = configAdmin;
        this.log = log;
        modified(config, properties);
    }

    /**
     * The refusal of a configuration, checked against the metatype before DS converts it (a port
     * of 70000 or "abc" would otherwise become something else), or null when it is allowed.
     */
    static String refusal(Map<String, ?> properties) {
        return ConfigCheck.of(PID, ConsoleAccess.class.getClassLoader()).problems(properties);
    }

    @Modified
    void modified(ConsoleConfiguration config, Map<String, Object> properties) {
        String refused = refusal(properties);
        if (refused != null) {
            log.error(refused + (policy == null ? "; serving local clients only, on the launch address"
                    : "; the previous configuration stays in force"));
            if (policy == null) {
                policy = new AccessPolicy("", "");
            }
            return;
        }
        AccessPolicy next = new AccessPolicy(config.username(), config.password());
        String host = config.host() == null ? "" : config.host().strip();
        if (!host.isEmpty() && !AccessPolicy.isLoopbackHost(host) && !next.hasCredentials()) {
            String message = "invalid ipoib.console property 'host' value '" + host + "': a non-loopback address "
                    + "needs 'username' and 'password' (no default password is accepted); allowed without them: "
                    + "127.0.0.1, ::1, localhost";
            // Not thrown: a component that fails would take the access policy down with it.
            // The listen address stays as it was; the credentials part applies.
            log.error(message + "; the listen address is unchanged");
            policy = next;
            return;
        }
        policy = next;
        bind(host, config.port());
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

    @Override
    public void doFilter(ServletRequest req, ServletResponse res, FilterChain chain) throws IOException, ServletException {
        HttpServletRequest request = (HttpServletRequest) req;
        HttpServletResponse response = (HttpServletResponse) res;
        AccessPolicy.Decision decision = policy.decide(request.getRemoteAddr(), request.getHeader("Authorization"),
                request.getMethod(), request.getHeader("Origin"), request.getHeader("Referer"),
                request.getHeader("Host"), request.getHeader("Sec-Fetch-Site"));
        if (!decision.allowed()) {
            if (decision.status() == 401) {
                response.setHeader("WWW-Authenticate", "Basic realm=\"ipoib console\", charset=\"UTF-8\"");
            }
            response.setStatus(decision.status());
            response.setContentType("text/plain;charset=UTF-8");
            response.getWriter().println(decision.reason());
            return;
        }
        if (!AccessPolicy.isSafe(request.getMethod()) && request.getRequestURI().startsWith(PROTECTED_PREFIX)
                && !AntiForgery.valid(request)) {
            response.setStatus(403);
            response.setContentType("text/plain;charset=UTF-8");
            response.getWriter().println(request.getMethod() + " refused: the anti-forgery token (form field "
                    + AntiForgery.FIELD + " or header " + AntiForgery.HEADER + ") is missing or wrong; reload the page");
            return;
        }
        request.setAttribute(USER_ATTRIBUTE, decision.user());
        request.setAttribute(TOKEN_ATTRIBUTE, AntiForgery.token());
        chain.doFilter(req, res);
    }
}
