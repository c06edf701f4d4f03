package ipoib.console.internal;

import jakarta.servlet.ServletOutputStream;
import jakarta.servlet.WriteListener;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import jakarta.servlet.http.HttpServletResponseWrapper;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStreamWriter;
import java.io.PrintWriter;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.util.Locale;

/**
 * An HTML page of the console with a small script added at the top of its head: it sends the
 * anti-forgery token with the page's own requests (every XMLHttpRequest to the console's origin
 * as the header, every form submitted there as a query parameter), so that the Web Console's own
 * pages (configuration, bundles), whose scripts know nothing of the token, keep working while
 * every state-changing request needs it. Other responses pass through untouched.
 *
 * <p>The page is held until it is complete: when the servlet returns, or, for a servlet that went
 * asynchronous ({@link TokenPageRequest}), when it completes its {@code AsyncContext}. A write
 * listener is told once, on a container thread, that it may write: the held page always takes
 * what it is given.
 */
final class TokenPageResponse extends HttpServletResponseWrapper {
    private final HttpServletRequest request;
    private final String token;
    private ByteArrayOutputStream page;
    private PrintWriter writer;
    private ServletOutputStream stream;
    private WriteListener listener;
    private boolean finished;

    /**
     * @param request the request as the servlet sees it (its async state says whether a write listener may be set)
     * @param token the anti-forgery token the script sends
     */
    TokenPageResponse(HttpServletRequest request, HttpServletResponse response, String token) {
        super(response);
        this.request = request;
        this.token = token;
    }

    static String script(String token) {
        return "<script>(function(){var t='" + token + "',h='" + AntiForgery.HEADER + "',f='" + AntiForgery.FIELD + "';"
                + "function same(u){try{return new URL(u,location.href).origin===location.origin}catch(e){return false}}"
                + "var o=XMLHttpRequest.prototype.open,s=XMLHttpRequest.prototype.send;"
                + "XMLHttpRequest.prototype.open=function(m,u){this.ipoibSame=same(u);return o.apply(this,arguments)};"
                + "XMLHttpRequest.prototype.send=function(){if(this.ipoibSame)this.setRequestHeader(h,t);"
                + "return s.apply(this,arguments)};"
                + "function mark(form){var a=form.getAttribute('action')||location.href;if(!same(a))return;"
                + "var u=new URL(a,location.href);u.searchParams.set(f,t);form.setAttribute('action',u.toString())}"
                + "document.addEventListener('submit',function(e){mark(e.target)},true);"
                + "var n=HTMLFormElement.prototype.submit;"
                + "HTMLFormElement.prototype.submit=function(){mark(this);return n.apply(this,arguments)};"
                + "})();</script>";
    }

    private boolean html() {
        String type = getContentType();
        return type != null && type.toLowerCase(Locale.ROOT).startsWith("text/html");
    }

    private Charset charset() {
        String encoding = getCharacterEncoding();
        try {
            return encoding == null ? StandardCharsets.ISO_8859_1 : Charset.forName(encoding);
        } catch (IllegalArgumentException e) {
            return StandardCharsets.UTF_8;
        }
    }

    @Override
    public ServletOutputStream getOutputStream() throws IOException {
        if (page == null && !html()) {
            return super.getOutputStream();
        }
        if (stream == null) {
            page = page == null ? new ByteArrayOutputStream() : page;
            stream = new ServletOutputStream() {
                @Override
                public void write(int b) {
                    page.write(b);
                }

                @Override
                public void write(byte[] b, int off, int len) {
                    page.write(b, off, len);
                }

                @Override
                public boolean isReady() {
                    return true;
                }

                @Override
                public void setWriteListener(WriteListener writeListener) {
                    listen(writeListener);
                }
            };
        }
        return stream;
    }

    @Override
    public PrintWriter getWriter() throws IOException {
        if (page == null && !html()) {
            return super.getWriter();
        }
        if (writer == null) {
            page = page == null ? new ByteArrayOutputStream() : page;
            writer = new PrintWriter(new OutputStreamWriter(page, charset()));
        }
        return writer;
    }

    @Override
    public void setContentLength(int length) {
        if (!html()) {
            super.setContentLength(length);
        }
    }

    @Override
    public void setContentLengthLong(long length) {
        if (!html()) {
            super.setContentLengthLong(length);
        }
    }

    @Override
    public void flushBuffer() throws IOException {
        if (page == null) {
            super.flushBuffer();
        }
    }

    /** As the Servlet API's {@code ServletOutputStream.setWriteListener}: in async mode only, once. */
    private void listen(WriteListener writeListener) {
        if (writeListener == null) {
            throw new NullPointerException("write listener");
        }
        if (!request.isAsyncStarted()) {
            throw new IllegalStateException("a write listener needs the request in async mode: call startAsync() first");
        }
        if (listener != null) {
            throw new IllegalStateException("a write listener is already set for this page");
        }
        listener = writeListener;
        request.getAsyncContext().start(() -> {
            try {
                writeListener.onWritePossible();
            } catch (IOException | RuntimeException e) {
                writeListener.onError(e);
            }
        });
    }

    /** Writes the buffered page with the script once the page is rendered; later calls do nothing. */
    void finish() throws IOException {
        if (page == null || finished) {
            return;
        }
        finished = true;
        if (writer != null) {
            writer.flush();
        }
        Charset charset = charset();
        String text = page.toString(charset);
        int head = text.toLowerCase(Locale.ROOT).indexOf("<head");
        int at = head < 0 ? -1 : text.indexOf('>', head) + 1;
        String out = at <= 0 ? script(token) + text : text.substring(0, at) + script(token) + text.substring(at);
        byte[] bytes = out.getBytes(charset);
        super.setContentLength(bytes.length);
        super.getOutputStream().write(bytes);
    }
}
