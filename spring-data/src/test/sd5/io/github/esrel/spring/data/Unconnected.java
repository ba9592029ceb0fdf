package io.github.esrel.spring.data;

import co.elastic.clients.elasticsearch.ElasticsearchClient;
import co.elastic.clients.json.jackson.JacksonJsonpMapper;
import co.elastic.clients.transport.rest_client.RestClientTransport;
import org.apache.http.HttpHost;
import org.elasticsearch.client.RestClient;

/** A client of this line that connects nowhere (nothing listens on port 1), for tests that send no request. */
final class Unconnected {

    private Unconnected() {}

    static ElasticsearchClient client() {
        return new ElasticsearchClient(new RestClientTransport(
                RestClient.builder(HttpHost.create("http://127.0.0.1:1")).build(), new JacksonJsonpMapper()));
    }
}
