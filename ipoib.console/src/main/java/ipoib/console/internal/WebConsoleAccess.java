package ipoib.console.internal;

import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.apache.felix.webconsole.spi.SecurityProvider;
import org.osgi.service.component.annotations.Component;

/**
 * Replaces the Web Console's built-in user check (whose default is admin/admin) by the console's
 * access policy: the preprocessor ({@link ConsoleAccess}) already let the request in, and says who.
 */
@Component(service = SecurityProvider.class, property = {SecurityProvider.PROPERTY_ID + "=ipoib",
        "service.ranking:Integer=100"})
public final class WebConsoleAccess implements SecurityProvider {

    @Override
    public Object authenticate(HttpServletRequest request, HttpServletResponse response) {
        return request.getAttribute(ConsoleAccess.USER_ATTRIBUTE);
    }

    @Override
    public boolean authorize(Object user, String role) {
        return user != null;
    }

    @Override
    public void logout(HttpServletRequest request, HttpServletResponse response) {
        // HTTP Basic has no server-side session to end.
    }
}
