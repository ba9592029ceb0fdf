package io.github.esrel.internal;

import co.elastic.clients.json.JsonpMapper;
import co.elastic.clients.transport.ElasticsearchTransportBase;
import co.elastic.clients.transport.TransportOptions;
import co.elastic.clients.transport.http.TransportHttpClient;

/**
 * esrel's transport next to the application's: the same HTTP client (connections, authentication, TLS, node
 * selection, headers) and options, with esrel's own JSON mapper for the JSON esrel writes and reads itself (lock and
 * checkpoint documents, request bodies of the plugin's endpoints, sources it works on as trees). The application's
 * mapper stays the application's: it may name properties in snake_case, write numbers as strings or be no Jackson 2
 * mapper at all (Spring Boot 4 gives a Jackson 3 one), none of which esrel's own documents may depend on.
 *
 * <p>Requests go out as the application's would, with one difference: the transport's instrumentation is the
 * default one (OpenTelemetry when a global OpenTelemetry is set up, as its agent does), not one the application
 * may have passed to its transport's constructor, which the transport does not show.
 */
final class EsrelTransport extends ElasticsearchTransportBase {

    EsrelTransport(TransportHttpClient httpClient, TransportOptions options, JsonpMapper mapper) {
        super(httpClient, options, mapper);
    }

    /** Does nothing: the HTTP client is the application's, closed with the application's client. */
    @Override
    public void close() {}
}
