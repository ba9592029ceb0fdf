package io.github.esrel.internal;

import co.elastic.clients.transport.TransportOptions;
import co.elastic.clients.transport.rest_client.RestClientOptions;
import java.io.IOException;
import java.nio.ByteBuffer;
import org.apache.http.HttpException;
import org.apache.http.HttpResponse;
import org.apache.http.nio.ContentDecoder;
import org.apache.http.nio.IOControl;
import org.apache.http.nio.protocol.HttpAsyncResponseConsumer;
import org.apache.http.protocol.HttpContext;
import org.elasticsearch.client.HttpAsyncResponseConsumerFactory;

/**
 * {@link ResendGuard}'s hook into the low-level {@code RestClient} (Apache HttpAsyncClient 4): a response consumer
 * factory, which the client asks for one consumer per copy it sends, that reports each copy's fate to a
 * {@link SendAttempts} and wraps the application's own factory (its buffer limit stays). Loaded only for a client on
 * {@code RestClientTransport}, so the low-level client's jar is needed only where the application uses it.
 *
 * <p>Internal: not part of esrel's API, may change without notice.
 */
final class RestClientCopies {

    private RestClientCopies() {}

    /** Whether {@code options} are this transport's (checked by name: the class may be absent). */
    static boolean handles(TransportOptions options) {
        return options.getClass().getName().equals("co.elastic.clients.transport.rest_client.RestClientOptions");
    }

    static TransportOptions reporting(TransportOptions options, SendAttempts attempts) {
        RestClientOptions rest = (RestClientOptions) options;
        HttpAsyncResponseConsumerFactory given = rest.restClientRequestOptions().getHttpAsyncResponseConsumerFactory();
        // Options that report already (a request sent again through esrel's transport with the options it was sent
        // with, a transport of esrel's under another) report to this request's attempts only: a factory per request.
        HttpAsyncResponseConsumerFactory app = given instanceof ReportingFactory r ? r.app() : given;
        RestClientOptions.Builder builder = rest.toBuilder();
        builder.restClientRequestOptionsBuilder()
                .setHttpAsyncResponseConsumerFactory(new ReportingFactory(app, attempts));
        return builder.build();
    }

    /** The application's factory, each of whose consumers reports the copy it receives to {@code attempts}. */
    private record ReportingFactory(HttpAsyncResponseConsumerFactory app, SendAttempts attempts)
            implements HttpAsyncResponseConsumerFactory {
        @Override
        public HttpAsyncResponseConsumer<HttpResponse> createHttpAsyncResponseConsumer() {
            attempts.next();
            return new Reporting(app.createHttpAsyncResponseConsumer(), attempts);
        }
    }

    /** The application's consumer, reporting what it sees. */
    private static final class Reporting implements HttpAsyncResponseConsumer<HttpResponse> {
        private final HttpAsyncResponseConsumer<HttpResponse> delegate;
        private final SendAttempts attempts;
        private boolean keepBody;

        Reporting(HttpAsyncResponseConsumer<HttpResponse> delegate, SendAttempts attempts) {
            this.delegate = delegate;
            this.attempts = attempts;
        }

        @Override
        public void responseReceived(HttpResponse response) throws IOException, HttpException {
            int status = response.getStatusLine().getStatusCode();
            attempts.answered(status);
            keepBody = status >= 500;
            delegate.responseReceived(response);
        }

        @Override
        public void consumeContent(ContentDecoder decoder, IOControl control) throws IOException {
            delegate.consumeContent(keepBody ? new Teeing(decoder, attempts) : decoder, control);
        }

        @Override
        public void responseCompleted(HttpContext context) {
            delegate.responseCompleted(context);
        }

        @Override
        public void failed(Exception e) {
            attempts.failed(e);
            delegate.failed(e);
        }

        @Override
        public Exception getException() {
            return delegate.getException();
        }

        @Override
        public HttpResponse getResult() {
            return delegate.getResult();
        }

        @Override
        public boolean isDone() {
            return delegate.isDone();
        }

        @Override
        public void close() throws IOException {
            delegate.close();
        }

        @Override
        public boolean cancel() {
            return delegate.cancel();
        }
    }

    /** A decoder that shows the bytes of a server error to the attempts as the consumer reads them. */
    private record Teeing(ContentDecoder decoder, SendAttempts attempts) implements ContentDecoder {
        @Override
        public int read(ByteBuffer dst) throws IOException {
            int start = dst.position();
            int n = decoder.read(dst);
            if (n > 0) {
                ByteBuffer read = dst.duplicate();
                read.position(start).limit(start + n);
                attempts.body(read);
            }
            return n;
        }

        @Override
        public boolean isCompleted() {
            return decoder.isCompleted();
        }
    }
}
