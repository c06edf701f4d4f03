package ipoib.console.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import jakarta.servlet.AsyncContext;
import jakarta.servlet.ServletOutputStream;
import jakarta.servlet.WriteListener;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.lang.reflect.Proxy;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** A console page gets the token script whether its servlet writes blocking or asynchronously. */
class TokenPageResponseTest {
    private static final String PAGE = "<html><head><title>t</title></head><body>hello</body></html>";

    /** What the container got: the bytes sent, and whether the async request was completed. */
    private final ByteArrayOutputStream sent = new ByteArrayOutputStream();
    private final Map<String, Object> response = new HashMap<>();
    private final CompletableFuture<Void> completed = new CompletableFuture<>();
    private boolean async;
    private AsyncContext context;

    private final HttpServletResponse container = proxy(HttpServletResponse.class, (name, args) -> switch (name) {
        case "setContentType" -> response.put("type", args[0]);
        case "getContentType" -> response.get("type");
        case "getCharacterEncoding" -> "UTF-8";
        case "setContentLength" -> response.put("length", args[0]);
        case "getOutputStream" -> new ServletOutputStream() {
            @Override
            public void write(int b) {
                sent.write(b);
            }

            @Override
            public boolean isReady() {
                return true;
            }

            @Override
            public void setWriteListener(WriteListener listener) {
                throw new AssertionError("the held page never hands its listener to the container's stream");
            }
        };
        default -> throw new UnsupportedOperationException(name);
    });

    private final HttpServletRequest request = proxy(HttpServletRequest.class, (name, args) -> switch (name) {
        case "isAsyncStarted" -> async;
        case "startAsync" -> {
            async = true;
            context = proxy(AsyncContext.class, (n, a) -> switch (n) {
                case "start" -> {
                    Thread t = new Thread((Runnable) a[0], "container"); // a container thread, not the caller's
                    t.start();
                    yield null;
                }
                case "complete" -> completed.complete(null);
                default -> throw new UnsupportedOperationException(n);
            });
            yield context;
        }
        case "getAsyncContext" -> context;
        default -> throw new UnsupportedOperationException(name);
    });

    @Test
    void aPageWrittenFromAWriteListenerGetsTheScriptWhenItsAsyncContextCompletes() throws Exception {
        TokenPageRequest pageRequest = new TokenPageRequest(request);
        TokenPageResponse page = new TokenPageResponse(pageRequest, container, "tok");
        pageRequest.page(page);

        // A servlet in async mode, writing when told it may.
        AsyncContext servletAsync = pageRequest.startAsync();
        page.setContentType("text/html;charset=UTF-8");
        ServletOutputStream out = page.getOutputStream();
        out.setWriteListener(new WriteListener() {
            @Override
            public void onWritePossible() throws IOException {
                while (out.isReady()) {
                    out.write(PAGE.getBytes(StandardCharsets.UTF_8));
                    servletAsync.complete();
                    return;
                }
            }

            @Override
            public void onError(Throwable t) {
                completed.completeExceptionally(t);
            }
        });
        assertTrue(pageRequest.isAsyncStarted(), "the filter leaves the page to the async completion");

        completed.get(10, TimeUnit.SECONDS);
        String text = sent.toString(StandardCharsets.UTF_8);
        assertTrue(text.startsWith("<html><head>" + TokenPageResponse.script("tok") + "<title>t</title>"), text);
        assertTrue(text.endsWith("<body>hello</body></html>"), text);
        assertEquals(text.getBytes(StandardCharsets.UTF_8).length, response.get("length"));
        page.finish();
        assertEquals(text, sent.toString(StandardCharsets.UTF_8), "the page is sent once");
    }

    @Test
    void aWriteListenerOutsideAsyncModeIsRefusedClearlyAndNothingIsSent() throws Exception {
        TokenPageRequest pageRequest = new TokenPageRequest(request);
        TokenPageResponse page = new TokenPageResponse(pageRequest, container, "tok");
        page.setContentType("text/html");
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> page.getOutputStream()
                .setWriteListener(new WriteListener() {
                    @Override
                    public void onWritePossible() {}

                    @Override
                    public void onError(Throwable t) {}
                }));
        assertTrue(e.getMessage().contains("needs the request in async mode"), e.getMessage());
        assertEquals(0, sent.size());
    }

    @Test
    void aBlockingPageGetsTheScriptAtTheTopOfItsHead() throws Exception {
        TokenPageResponse page = new TokenPageResponse(new TokenPageRequest(request), container, "tok");
        page.setContentType("text/html");
        page.getWriter().write(PAGE);
        page.finish();
        assertTrue(sent.toString(StandardCharsets.UTF_8).startsWith("<html><head>" + TokenPageResponse.script("tok")));
    }

    private interface Answer {
        Object answer(String method, Object[] args) throws Exception;
    }

    @SuppressWarnings("unchecked")
    private static <T> T proxy(Class<T> type, Answer answer) {
        return (T) Proxy.newProxyInstance(TokenPageResponseTest.class.getClassLoader(), new Class<?>[] {type},
                (p, method, args) -> switch (method.getName()) {
                    case "toString" -> type.getSimpleName();
                    case "hashCode" -> System.identityHashCode(p);
                    case "equals" -> p == args[0];
                    default -> answer.answer(method.getName(), args);
                });
    }
}
