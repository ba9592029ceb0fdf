package io.github.esrel.join;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import co.elastic.clients.elasticsearch._types.FieldValue;
import co.elastic.clients.elasticsearch.core.SearchResponse;
import co.elastic.clients.elasticsearch.core.search.Hit;
import co.elastic.clients.elasticsearch.core.search.ResponseBody;
import co.elastic.clients.elasticsearch.core.search.TotalHitsRelation;
import co.elastic.clients.json.JsonData;
import co.elastic.clients.json.jackson.JacksonJsonpMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.github.esrel.doc.DocMeta;
import io.github.esrel.doc.DocumentConverter;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The typed searches of a join with a {@link DocumentConverter}: searched as JSON, each source converted by the
 * converter (with the hit's index, id and routing), everything else of the response the join reads kept.
 */
class SourcesTest {

    private static final JacksonJsonpMapper MAPPER = new JacksonJsonpMapper();

    /** Reads a document as "name@id/routing", to see what the converter was given. */
    private static final DocumentConverter NAMES = new DocumentConverter() {
        @Override
        public <T> T read(ObjectNode source, Class<T> type, DocMeta meta) {
            if (!source.has("name")) {
                throw new IllegalArgumentException("no name");
            }
            return type.cast(source.get("name").asText() + "@" + meta.id() + "/" + meta.routing());
        }

        @Override
        public ObjectNode write(Object value) {
            throw new UnsupportedOperationException();
        }
    };

    private static ResponseBody<JsonData> response(Map<String, Object> source) {
        Hit<JsonData> a = Hit.of(h -> h.index("users")
                .id("u1")
                .routing("r1")
                .score(1.5)
                .sort(List.of(FieldValue.of("k1")))
                .source(JsonData.of(source, MAPPER)));
        Hit<JsonData> b = Hit.of(h -> h.index("users").id("u2").sort(List.of(FieldValue.of("k2"))));
        return SearchResponse.of(r -> r.took(3)
                .timedOut(false)
                .shards(s -> s.total(1).successful(1).failed(0))
                .pitId("pit-1")
                .hits(m ->
                        m.total(t -> t.value(7).relation(TotalHitsRelation.Eq)).hits(List.of(a, b))));
    }

    @Test
    void shouldConvertEverySourceAndKeepWhatTheJoinReads() {
        Sources sources = new Sources(MAPPER, NAMES);
        ResponseBody<String> typed = sources.typed(response(Map.of("name", "Ada")), String.class);

        assertThat(typed.hits().hits()).hasSize(2);
        Hit<String> first = typed.hits().hits().get(0);
        assertThat(first.source()).isEqualTo("Ada@u1/r1");
        assertThat(first.index()).isEqualTo("users");
        assertThat(first.id()).isEqualTo("u1");
        assertThat(first.score()).isEqualTo(1.5);
        assertThat(first.sort()).extracting(FieldValue::stringValue).containsExactly("k1");
        assertThat(typed.hits().hits().get(1).source())
                .as("a hit without source")
                .isNull();
        assertThat(typed.hits().total().value()).isEqualTo(7);
        assertThat(typed.pitId()).isEqualTo("pit-1");
    }

    @Test
    void shouldConvertOnlyTheCallersTypesAndOnlyWithAConverter() {
        Sources sources = new Sources(MAPPER, NAMES);
        assertThat(sources.converts(String.class)).isTrue();
        assertThat(sources.converts(JsonData.class)).isFalse();
        assertThat(sources.converts(Void.class)).isFalse();
        assertThat(new Sources(MAPPER, null).converts(String.class)).isFalse();
    }

    @Test
    void shouldNameTheDocumentWhoseSourceCannotBeConverted() {
        Sources sources = new Sources(MAPPER, NAMES);
        assertThatThrownBy(() -> sources.typed(response(Map.of("other", 1)), String.class))
                .isInstanceOf(JoinException.class)
                .hasMessageContaining("[users][u1]")
                .hasMessageContaining("no name");
    }
}
