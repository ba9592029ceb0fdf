package io.github.esrel.internal;

import co.elastic.clients.transport.TransportOptions;
import co.elastic.clients.transport.rest5_client.Rest5ClientOptions;
import co.elastic.clients.transport.rest5_client.low_level.HttpAsyncResponseConsumerFactory;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.List;
import org.apache.hc.core5.concurrent.FutureCallback;
import org.apache.hc.core5.http.ClassicHttpResponse;
import org.apache.hc.core5.http.EntityDetails;
import org.apache.hc.core5.http.Header;
import org.apache.hc.core5.http.HttpException;
import org.apache.hc.core5.http.HttpResponse;
import org.apache.hc.core5.http.nio.AsyncResponseConsumer;
import org.apache.hc.core5.http.nio.CapacityChannel;
import org.apache.hc.core5.http.protocol.HttpContext;

/**
 * {@link ResendGuard}'s hook into the low-level {@code Rest5Client} (Apache HttpClient 5): a response consumer
 * factory, which the client asks for one consumer per copy it sends, that reports each copy's fate to a
 * {@link SendAttempts} and wraps the application's own factory (its buffer limit stays).
 *
 * <p>Internal: not part of esrel's API, may change without notice.
 */
final class Rest5ClientCopies {

    private Rest5ClientCopies() {}

    static TransportOptions reporting(Rest5ClientOptions options, SendAttempts attempts) {
        HttpAsyncResponseConsumerFactory given =
                options.restClientRequestOptions().getHttpAsyncResponseConsumerFactory();
        // Options that report already (a request sent again through esrel's transport with the options it was sent
        // with, a transport of esrel's under another) report to this request's attempts only: a factory per request.
        HttpAsyncResponseConsumerFactory app = given instanceof ReportingFactory r ? r.app() : given;
        Rest5ClientOptions.Builder builder = options.toBuilder();
        builder.restClientRequestOptionsBuilder()
                .setHttpAsyncResponseConsumerFactory(new ReportingFactory(app, attempts));
        return builder.build();
    }

    /** The application's factory, each of whose consumers reports the copy it receives to {@code attempts}. */
    private record ReportingFactory(HttpAsyncResponseConsumerFactory app, SendAttempts attempts)
            implements HttpAsyncResponseConsumerFactory {
        @Override
        public AsyncResponseConsumer<ClassicHttpResponse> createHttpAsyncResponseConsumer() {
            attempts.next();
            return new Reporting(app.createHttpAsyncResponseConsumer(), attempts);
        }
    }

    /** The application's consumer, reporting what it sees. */
    private static final class Reporting implements AsyncResponseConsumer<ClassicHttpResponse> {
        private final AsyncResponseConsumer<ClassicHttpResponse> delegate;
        private final SendAttempts attempts;
        private volatile boolean keepBody;

        Reporting(AsyncResponseConsumer<ClassicHttpResponse> delegate, SendAttempts attempts) {
            this.delegate = delegate;
            this.attempts = attempts;
        }

        @Override
        public void consumeResponse(
                HttpResponse response,
                EntityDetails entity,
                HttpContext context,
                FutureCallback<ClassicHttpResponse> resultCallback)
                throws HttpException, IOException {
            attempts.answered(response.getCode());
            keepBody = response.getCode() >= 500;
            delegate.consumeResponse(response, entity, context, resultCallback);
        }

        @Override
        public void informationResponse(HttpResponse response, HttpContext context) throws HttpException, IOException {
            delegate.informationResponse(response, context);
        }

        @Override
        public void failed(Exception cause) {
            attempts.failed(cause);
            delegate.failed(cause);
        }

        @Override
        public void updateCapacity(CapacityChannel capacityChannel) throws IOException {
            delegate.updateCapacity(capacityChannel);
        }

        @Override
        public void consume(ByteBuffer src) throws IOException {
            if (keepBody) {
                attempts.body(src); // reads a duplicate: the consumer gets every byte
            }
            delegate.consume(src);
        }

        @Override
        public void streamEnd(List<? extends Header> trailers) throws HttpException, IOException {
            delegate.streamEnd(trailers);
        }

        @Override
        public void releaseResources() {
            delegate.releaseResources();
        }
    }
}
