package io.github.esrel.internal;

import co.elastic.clients.elasticsearch._types.Script;
import co.elastic.clients.elasticsearch._types.query_dsl.Query;
import co.elastic.clients.elasticsearch.core.CreateRequest;
import co.elastic.clients.elasticsearch.core.DeleteRequest;
import co.elastic.clients.elasticsearch.core.GetRequest;
import co.elastic.clients.elasticsearch.core.IndexRequest;
import co.elastic.clients.elasticsearch.core.OpenPointInTimeRequest;
import co.elastic.clients.elasticsearch.core.SearchRequest;
import co.elastic.clients.elasticsearch.core.UpdateRequest;
import co.elastic.clients.elasticsearch.core.mget.MultiGetOperation;
import co.elastic.clients.json.JsonData;
import co.elastic.clients.json.JsonpUtils;
import co.elastic.clients.json.SimpleJsonpMapper;
import co.elastic.clients.transport.ElasticsearchTransport;
import co.elastic.clients.transport.TransportOptions;
import co.elastic.clients.transport.http.TransportHttpClient;
import co.elastic.clients.transport.rest_client.RestClientHttpClient;
import co.elastic.clients.transport.rest_client.RestClientTransport;
import java.io.StringReader;
import java.util.LinkedHashMap;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * What esrel needs from {@code elasticsearch-java} that its 8.x and 9.x lines spell differently: the one seam
 * between esrel's code and the client line. This copy is compiled into {@code esrel-client-es8}
 * (elasticsearch-java 8.19); {@code src/main/client-es9} holds the copy for {@code esrel-client}, with the same
 * members.
 *
 * <p>Internal: not part of esrel's API, may change without notice.
 */
public final class ClientApi {

    /** The artifact built from this copy. */
    public static final String ARTIFACT = "esrel-client-es8";
    /** The major version of the elasticsearch-java line this copy is compiled against. */
    public static final int CLIENT_MAJOR = 8;
    /**
     * The oldest elasticsearch-java this copy links against and is tested with (CI runs every client IT on it):
     * major and minor.
     */
    public static final int[] MIN_CLIENT = {8, 15};
    /** The artifact to use instead when the server refuses this client line. */
    public static final String OTHER_ARTIFACT = "esrel-client";

    private static final SimpleJsonpMapper SIMPLE = new SimpleJsonpMapper();

    private ClientApi() {}

    /**
     * The HTTP client under {@code transport} (its connections, authentication, TLS and node selection), for a
     * transport of esrel's own next to it; {@code null} for a transport that does not show one. The 8.x line's
     * {@code ElasticsearchTransportBase} keeps its HTTP client to itself, but its one transport,
     * {@code RestClientTransport}, shows the low-level {@code RestClient} that HTTP client wraps.
     */
    public static @Nullable TransportHttpClient httpClient(ElasticsearchTransport transport) {
        return transport instanceof RestClientTransport rest ? new RestClientHttpClient(rest.restClient()) : null;
    }

    /**
     * {@code options} with every copy of a request reported to {@code attempts} (see {@link ResendGuard}), for the
     * low-level client of this line, {@code RestClient} ({@code RestClientTransport}); {@code null} for options of
     * another transport.
     */
    static @Nullable TransportOptions reportingCopies(TransportOptions options, SendAttempts attempts) {
        return RestClientCopies.handles(options) ? RestClientCopies.reporting(options, attempts) : null;
    }

    /** A painless script with its source inline. */
    public static Script painless(String source, Map<String, JsonData> params) {
        return Script.of(s -> s.lang("painless").source(source).params(params));
    }

    /**
     * A range query on a numeric field: {@code field >= bound} when {@code atLeast}, else {@code field <= bound}.
     * Built from JSON: the range builders' {@code field} moved from a generic superclass (8.15) to each builder
     * (8.19), so no typed call links against every 8.x client from 8.15 on.
     */
    public static Query range(String field, boolean atLeast, long bound) {
        return range(field, atLeast, bound, null);
    }

    /**
     * {@link #range(String, boolean, long)} with the range's {@code format} ({@code null}: none); {@code epoch_millis}
     * reads the bound as milliseconds on a date field whatever its own format, and numeric fields ignore it.
     */
    public static Query range(String field, boolean atLeast, long bound, @Nullable String format) {
        if (format != null) {
            // Sent as written: 8.15's range query model writes a parsed "format" beside the field's object instead of
            // in it, which Elasticsearch refuses.
            Map<String, Object> range = new LinkedHashMap<>();
            range.put(atLeast ? "gte" : "lte", bound);
            range.put("format", format);
            return Query.of(q -> q._custom("range", JsonData.of(Map.of(field, range))));
        }
        String json = "{\"range\":{" + JsonpUtils.toJsonString(JsonData.of(field), SIMPLE) + ":{\""
                + (atLeast ? "gte" : "lte") + "\":" + bound + "}}}";
        return Query.of(q -> q.withJson(new StringReader(json)));
    }

    /**
     * Looks up the JSON-P providers the client's deserializers use (a service lookup that reads jar files, done once),
     * so that the first response that needs one, on an I/O thread of the async client, does not read a file there.
     */
    public static void loadJsonProviders() {
        JsonpUtils.provider();
    }

    // Sets the routing of a request builder and returns it: the same call as in the 9.x copy, where the builders'
    // routing methods differ between client versions. Every 8.x client from 8.15 on has routing(String).

    /** {@code builder.routing(routing)}. */
    public static GetRequest.Builder routing(GetRequest.Builder builder, String routing) {
        return builder.routing(routing);
    }

    /** {@code builder.routing(routing)}. */
    public static <D> IndexRequest.Builder<D> routing(IndexRequest.Builder<D> builder, String routing) {
        return builder.routing(routing);
    }

    /** {@code builder.routing(routing)}. */
    public static <D> CreateRequest.Builder<D> routing(CreateRequest.Builder<D> builder, String routing) {
        return builder.routing(routing);
    }

    /** {@code builder.routing(routing)}. */
    public static DeleteRequest.Builder routing(DeleteRequest.Builder builder, String routing) {
        return builder.routing(routing);
    }

    /** {@code builder.routing(routing)}. */
    public static <D, P> UpdateRequest.Builder<D, P> routing(UpdateRequest.Builder<D, P> builder, String routing) {
        return builder.routing(routing);
    }

    /** {@code builder.routing(routing)}. */
    public static SearchRequest.Builder routing(SearchRequest.Builder builder, String routing) {
        return builder.routing(routing);
    }

    /** {@code builder.routing(routing)}. */
    public static OpenPointInTimeRequest.Builder routing(OpenPointInTimeRequest.Builder builder, String routing) {
        return builder.routing(routing);
    }

    /** {@code builder.routing(routing)}. */
    public static MultiGetOperation.Builder routing(MultiGetOperation.Builder builder, String routing) {
        return builder.routing(routing);
    }
}
