package io.github.esrel.testenv;

import static org.assertj.core.api.Assertions.assertThat;

import co.elastic.clients.elasticsearch.ElasticsearchClient;
import co.elastic.clients.elasticsearch._types.Refresh;
import co.elastic.clients.elasticsearch.core.GetResponse;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import org.elasticsearch.client.Request;
import org.elasticsearch.client.Response;
import org.elasticsearch.client.RestClient;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

@EsrelTest
class SingleNodeClusterIT {

    @Cluster
    static final EsCluster cluster = EsCluster.builder().plugin(false).build();

    @Test
    void shouldIndexAndGetADocument() throws IOException {
        ElasticsearchClient client = cluster.client();
        ObjectNode doc = new ObjectMapper().createObjectNode().put("name", "a");

        client.index(i -> i.index("docs").id("1").document(doc).refresh(Refresh.True));
        GetResponse<ObjectNode> got = client.get(g -> g.index("docs").id("1"), ObjectNode.class);

        assertThat(got.found()).isTrue();
        assertThat(got.source().path("name").asText()).isEqualTo("a");
    }

    @Test
    void shouldDescribeTheRunningCluster() {
        assertThat(cluster.backendName()).isEqualTo("local");
        assertThat(cluster.size()).isEqualTo(1);
        assertThat(cluster.version()).isEqualTo(TestenvProperties.esVersion());
        assertThat(cluster.pluginInstalled()).isFalse();
        assertThat(cluster.supportsNodeControl()).isTrue();
        assertThat(cluster.httpUris()).containsExactly(cluster.httpUri());
        assertThat(cluster.httpUri().getPort()).isLessThan(32_768);
        assertThat(cluster.nodeLog(0)).exists();
    }

    @Test
    void shouldInjectTheClusterAndItsClients(EsCluster injected, ElasticsearchClient client, RestClient rest)
            throws IOException {
        assertThat(injected).isSameAs(cluster);
        assertThat(client).isSameAs(cluster.client());
        Response response = rest.performRequest(new Request("GET", "/_cluster/health"));
        assertThat(response.getStatusLine().getStatusCode()).isEqualTo(200);
    }

    @Nested
    class InANestedClass {

        @Test
        void shouldInjectTheClusterOfTheEnclosingClass(EsCluster injected) {
            assertThat(injected).isSameAs(cluster);
            assertThat(injected.client()).isNotNull();
        }
    }
}
