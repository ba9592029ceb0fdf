package io.github.esrel.spring.data;

import co.elastic.clients.elasticsearch.ElasticsearchClient;
import co.elastic.clients.json.jackson.JacksonJsonpMapper;
import co.elastic.clients.transport.rest5_client.Rest5ClientTransport;
import co.elastic.clients.transport.rest5_client.low_level.Rest5Client;
import java.net.URI;

/** A client of this line that connects nowhere (nothing listens on port 1), for tests that send no request. */
final class Unconnected {

    private Unconnected() {}

    static ElasticsearchClient client() {
        return new ElasticsearchClient(new Rest5ClientTransport(
                Rest5Client.builder(URI.create("http://127.0.0.1:1")).build(), new JacksonJsonpMapper()));
    }
}
