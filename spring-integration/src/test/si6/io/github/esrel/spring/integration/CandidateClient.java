package io.github.esrel.spring.integration;

import co.elastic.clients.elasticsearch.ElasticsearchClient;
import co.elastic.clients.json.jackson.JacksonJsonpMapper;
import co.elastic.clients.transport.rest_client.RestClientTransport;
import java.net.URI;
import org.apache.http.HttpHost;
import org.elasticsearch.client.RestClient;

/** The client of a {@link LeaderCandidateMain}, on the 8.x client's RestClient. */
final class CandidateClient {

    private CandidateClient() {}

    static ElasticsearchClient create(URI uri) {
        RestClient rest = RestClient.builder(HttpHost.create(uri.toString())).build();
        return new ElasticsearchClient(new RestClientTransport(rest, new JacksonJsonpMapper()));
    }
}
