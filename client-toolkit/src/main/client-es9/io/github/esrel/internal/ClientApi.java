package io.github.esrel.internal;

import co.elastic.clients.elasticsearch._types.Script;
import co.elastic.clients.elasticsearch._types.query_dsl.Query;
import co.elastic.clients.json.JsonData;
import co.elastic.clients.json.JsonpUtils;
import co.elastic.clients.transport.ElasticsearchTransport;
import co.elastic.clients.transport.ElasticsearchTransportBase;
import co.elastic.clients.transport.TransportOptions;
import co.elastic.clients.transport.http.TransportHttpClient;
import co.elastic.clients.transport.rest5_client.Rest5ClientOptions;
import co.elastic.clients.transport.rest5_client.low_level.HttpAsyncResponseConsumerFactory;
import java.io.IOException;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Map;
import org.apache.hc.core5.concurrent.FutureCallback;
import org.apache.hc.core5.http.ClassicHttpResponse;
import org.apache.hc.core5.http.EntityDetails;
import org.apache.hc.core5.http.Header;
import org.apache.hc.core5.http.HttpException;
import org.apache.hc.core5.http.HttpResponse;
import org.apache.hc.core5.http.nio.AsyncResponseConsumer;
import org.apache.hc.core5.http.nio.CapacityChannel;
import org.apache.hc.core5.http.protocol.HttpContext;
import org.jspecify.annotations.Nullable;

/**
 * What esrel needs from {@code elasticsearch-java} that its 8.x and 9.x lines spell differently: the one seam
 * between esrel's code and the client line. This copy is compiled into {@code esrel-client} (elasticsearch-java
 * 9.x); {@code src/main/client-es8} holds the copy for {@code esrel-client-es8}, with the same members.
 *
 * <p>Internal: not part of esrel's API, may change without notice.
 */
public final class ClientApi {

    /** The artifact built from this copy. */
    public static final String ARTIFACT = "esrel-client";
    /** The major version of the elasticsearch-java line this copy is compiled against. */
    public static final int CLIENT_MAJOR = 9;
    /**
     * The oldest elasticsearch-java this copy links against and is tested with (CI runs every client IT on it):
     * major and minor.
     */
    public static final int[] MIN_CLIENT = {9, 0};
    /** The artifact to use instead when the server refuses this client line. */
    public static final String OTHER_ARTIFACT = "esrel-client-es8";

    private ClientApi() {}

    /**
     * The HTTP client under {@code transport} (its connections, authentication, TLS and node selection), for a
     * transport of esrel's own next to it; {@code null} for a transport that does not show one. Every transport of
     * the 9.x line ({@code Rest5ClientTransport}, {@code RestClientTransport}) extends
     * {@link ElasticsearchTransportBase}, which does.
     */
    public static @Nullable TransportHttpClient httpClient(ElasticsearchTransport transport) {
        return transport instanceof ElasticsearchTransportBase base ? base.httpClient() : null;
    }

    /**
     * {@code options} with every copy of a request reported to {@code attempts} (see {@link ResendGuard}), for the
     * low-level clients of this line: {@code Rest5Client} ({@code Rest5ClientTransport}) and {@code RestClient}
     * ({@code RestClientTransport}, whose jar is optional); {@code null} for options of another transport.
     */
    static @Nullable TransportOptions reportingCopies(TransportOptions options, SendAttempts attempts) {
        if (options instanceof Rest5ClientOptions rest5) {
            return Rest5Copies.reporting(rest5, attempts);
        }
        return RestClientCopies.handles(options) ? RestClientCopies.reporting(options, attempts) : null;
    }

    /**
     * Looks up the JSON-P providers the client's deserializers use (a service lookup that reads jar files, done once),
     * so that the first response that needs one, on an I/O thread of the async client, does not read a file there.
     */
    public static void loadJsonProviders() {
        JsonpUtils.provider();
        JsonpUtils.systemProvider();
    }

    /** A painless script with its source inline. */
    public static Script painless(String source, Map<String, JsonData> params) {
        return Script.of(
                s -> s.lang("painless").source(src -> src.scriptString(source)).params(params));
    }

    /** A range query on a numeric field: {@code field >= bound} when {@code atLeast}, else {@code field <= bound}. */
    public static Query range(String field, boolean atLeast, long bound) {
        return range(field, atLeast, bound, null);
    }

    /**
     * {@link #range(String, boolean, long)} with the range's {@code format} ({@code null}: none); {@code epoch_millis}
     * reads the bound as milliseconds on a date field whatever its own format, and numeric fields ignore it.
     */
    public static Query range(String field, boolean atLeast, long bound, @Nullable String format) {
        return Query.of(q -> q.range(r -> r.untyped(u -> {
            u.field(field);
            if (format != null) {
                u.format(format);
            }
            return atLeast ? u.gte(JsonData.of(bound)) : u.lte(JsonData.of(bound));
        })));
    }

    /**
     * Sets the routing of a request builder ({@code GetRequest.Builder}, {@code IndexRequest.Builder}, …) and returns
     * it. 9.0–9.4 builders have {@code routing(String)}, 9.5 ones {@code routing(String, String...)}: no call compiles
     * to a method every 9.x client has, so the method is looked up once per builder class.
     *
     * @throws IllegalArgumentException if the builder has no routing method
     */
    public static <B> B routing(B builder, String routing) {
        try {
            @SuppressWarnings("unchecked") // the handle returns its receiver's own builder type
            B routed = (B) ROUTING.get(builder.getClass()).invoke(builder, routing);
            return routed;
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable e) {
            throw new IllegalStateException(e); // a builder setter throws nothing checked
        }
    }

    private static final ClassValue<MethodHandle> ROUTING = new ClassValue<>() {
        @Override
        protected MethodHandle computeValue(Class<?> type) {
            MethodHandles.Lookup lookup = MethodHandles.publicLookup();
            try {
                return lookup.findVirtual(type, "routing", MethodType.methodType(type, String.class));
            } catch (NoSuchMethodException | IllegalAccessException older) {
                try {
                    MethodHandle list = lookup.findVirtual(
                            type, "routing", MethodType.methodType(type, String.class, String[].class));
                    return MethodHandles.insertArguments(list, 2, (Object) new String[0]);
                } catch (NoSuchMethodException | IllegalAccessException e) {
                    throw new IllegalArgumentException(type.getName() + " has no routing(String) method", e);
                }
            }
        }
    };

    /**
     * {@link ResendGuard}'s hook into the low-level {@code Rest5Client} (Apache HttpClient 5): a response consumer
     * factory, which the client asks for one consumer per copy it sends, that reports each copy's fate to a
     * {@link SendAttempts} and wraps the application's own factory (its buffer limit stays). This line's alone (the
     * 8.x line has no {@code Rest5Client}); {@link RestClientCopies} is the {@code RestClient}'s, on both lines.
     */
    private static final class Rest5Copies {

        private Rest5Copies() {}

        static TransportOptions reporting(Rest5ClientOptions options, SendAttempts attempts) {
            HttpAsyncResponseConsumerFactory given =
                    options.restClientRequestOptions().getHttpAsyncResponseConsumerFactory();
            // Options that report already (a request sent again through esrel's transport with the options it was sent
            // with, a transport of esrel's under another) report to this request's attempts only: a factory per
            // request.
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
            public void informationResponse(HttpResponse response, HttpContext context)
                    throws HttpException, IOException {
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
}
