package io.github.esrel.spring.integration;

import co.elastic.clients.elasticsearch.ElasticsearchClient;
import co.elastic.clients.json.jackson.JacksonJsonpMapper;
import co.elastic.clients.transport.rest5_client.Rest5ClientTransport;
import co.elastic.clients.transport.rest5_client.low_level.Rest5Client;
import java.net.URI;
import java.util.List;

/** The client of a {@link LeaderCandidateMain}, on the 9.x client's Rest5Client. */
final class CandidateClient {

    private CandidateClient() {}

    static ElasticsearchClient create(URI uri) {
        Rest5Client rest = Rest5Client.builder(List.of(uri)).build();
        return new ElasticsearchClient(new Rest5ClientTransport(rest, new JacksonJsonpMapper()));
    }
}
