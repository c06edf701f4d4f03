package ipoib.console.internal;

import jakarta.servlet.AsyncContext;
import jakarta.servlet.AsyncListener;
import jakarta.servlet.ServletContext;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletRequestWrapper;
import java.io.IOException;
import java.io.UncheckedIOException;

/**
 * The request of a {@link TokenPageResponse}: a servlet that goes asynchronous gets an
 * {@code AsyncContext} whose {@link AsyncContext#complete complete} first writes the held page
 * with its script, so that a page written asynchronously (with a write listener or from another
 * thread) is sent whole, script included, as a blocking one is when the servlet returns.
 */
final class TokenPageRequest extends HttpServletRequestWrapper {
    private TokenPageResponse page;
    private AsyncContext async;

    TokenPageRequest(HttpServletRequest request) {
        super(request);
    }

    /** The page this request's async completion finishes (set once both exist). */
    void page(TokenPageResponse page) {
        this.page = page;
    }

    @Override
    public AsyncContext startAsync() {
        return finishing(super.startAsync());
    }

    @Override
    public AsyncContext startAsync(ServletRequest request, ServletResponse response) {
        return finishing(super.startAsync(request, response));
    }

    @Override
    public AsyncContext getAsyncContext() {
        AsyncContext current = super.getAsyncContext();
        return async != null ? async : current;
    }

    private synchronized AsyncContext finishing(AsyncContext started) {
        async = new Finishing(started);
        return async;
    }

    /** An async context whose completion writes the held page first. */
    private final class Finishing implements AsyncContext {
        private final AsyncContext delegate;

        Finishing(AsyncContext delegate) {
            this.delegate = delegate;
        }

        @Override
        public void complete() {
            try {
                page.finish();
            } catch (IOException e) {
                throw new UncheckedIOException("cannot send the console page", e);
            } finally {
                delegate.complete();
            }
        }

        @Override
        public ServletRequest getRequest() {
            return delegate.getRequest();
        }

        @Override
        public ServletResponse getResponse() {
            return delegate.getResponse();
        }

        @Override
        public boolean hasOriginalRequestAndResponse() {
            return delegate.hasOriginalRequestAndResponse();
        }

        @Override
        public void dispatch() {
            delegate.dispatch();
        }

        @Override
        public void dispatch(String path) {
            delegate.dispatch(path);
        }

        @Override
        public void dispatch(ServletContext context, String path) {
            delegate.dispatch(context, path);
        }

        @Override
        public void start(Runnable run) {
            delegate.start(run);
        }

        @Override
        public void addListener(AsyncListener listener) {
            delegate.addListener(listener);
        }

        @Override
        public void addListener(AsyncListener listener, ServletRequest request, ServletResponse response) {
            delegate.addListener(listener, request, response);
        }

        @Override
        public <T extends AsyncListener> T createListener(Class<T> type) throws ServletException {
            return delegate.createListener(type);
        }

        @Override
        public void setTimeout(long timeout) {
            delegate.setTimeout(timeout);
        }

        @Override
        public long getTimeout() {
            return delegate.getTimeout();
        }
    }
}
