package io.github.esrel.occ;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import co.elastic.clients.elasticsearch.ElasticsearchClient;
import co.elastic.clients.json.SimpleJsonpMapper;
import co.elastic.clients.json.jackson.JacksonJsonpMapper;
import co.elastic.clients.transport.rest_client.RestClientTransport;
import io.github.esrel.doc.DocRef;
import java.io.IOException;
import java.util.Map;
import org.apache.http.HttpHost;
import org.elasticsearch.client.RestClient;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Argument checks that fail before any request (the client points nowhere and is never called). */
class OccValidationTest {

    private final RestClient rest =
            RestClient.builder(new HttpHost("127.0.0.1", 9)).build();
    private final ElasticsearchClient es =
            new ElasticsearchClient(new RestClientTransport(rest, new JacksonJsonpMapper()));
    private final Occ occ = Occ.of(b -> b.client(es));

    @AfterEach
    void close() throws IOException {
        rest.close();
    }

    @Test
    void shouldRequireAClientAndTakeAnyMapper() {
        assertThatThrownBy(() -> Occ.of(b -> b)).hasMessage("client cannot be null");
        ElasticsearchClient simple = new ElasticsearchClient(new RestClientTransport(rest, new SimpleJsonpMapper()));
        assertThat(Occ.of(b -> b.client(simple))).isNotNull(); // maps what it can: ObjectNode needs no mapper
    }

    @Test
    void shouldRejectMissingIndexIdOrFunctionNamingTheValue() {
        assertThatThrownBy(() -> occ.update("", "1", Map.class, m -> m)).hasMessage("index must not be blank, got []");
        assertThatThrownBy(() -> occ.update("i", "", Map.class, m -> m)).hasMessage("id must not be empty");
        assertThatThrownBy(() -> occ.update("i", "1", Map.class, null)).hasMessage("fn cannot be null");
        assertThatThrownBy(() -> occ.upsert("i", "1", Map.class, null, m -> m)).hasMessage("initial cannot be null");
        assertThatThrownBy(() -> occ.scriptedUpdate(DocRef.of("i", "1"), "ctx._source.n++", Map.of(), -1))
                .hasMessage("retryOnConflict must not be negative, got -1");
        assertThatThrownBy(() -> occ.bulk(Map.class).batchSize(0)).hasMessage("batchSize must be positive, got 0");
        assertThatThrownBy(() -> occ.bulk(Map.class).update(null, "1", m -> m)).hasMessage("index cannot be null");
        assertThatThrownBy(() -> occ.update(DocRef.id("1"), Map.class, m -> m))
                .hasMessage("the document reference 1 names no index; use DocRef.of(index, id)");
    }

    @Test
    void shouldExecuteAnEmptyBulkWithoutRequestsButOnlyOnce() {
        BulkUpdate<Shirt> bulk = occ.bulk(Shirt.class);
        BulkOutcome<Shirt> done = bulk.execute();
        assertThat(done.items()).isEmpty();
        assertThat(done.rounds()).isZero();
        assertThat(done.complete()).isTrue();
        assertThatThrownBy(bulk::execute).hasMessage("this bulk update was already executed");
    }

    @Test
    void shouldRejectNegativeExternalVersions() {
        ExternalVersions ext = ExternalVersions.of(b -> b.client(es));
        assertThatThrownBy(() -> ext.index("i", "1", -1, Map.of()))
                .hasMessage("external versions must be between 0 and 2^63-1, got -1");
        assertThatThrownBy(() -> ExternalVersions.of(b -> b.client(es).maxRememberedDeletes(-1)))
                .hasMessage("maxRememberedDeletes must not be negative, got -1");
        assertThat(ext)
                .hasToString(
                        "ExternalVersions{versionType=external, rememberDeletesFor=PT1H, maxRememberedDeletes=100000}");
    }

    /** A document type for the checks; never read from a node here. */
    record Shirt(String name, long votes) {}
}
