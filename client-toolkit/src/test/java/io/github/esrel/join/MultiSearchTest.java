package io.github.esrel.join;

import static org.assertj.core.api.Assertions.assertThat;

import co.elastic.clients.elasticsearch._types.FieldValue;
import co.elastic.clients.elasticsearch._types.SortOrder;
import co.elastic.clients.elasticsearch._types.query_dsl.Query;
import co.elastic.clients.elasticsearch.core.SearchRequest;
import co.elastic.clients.json.JsonData;
import co.elastic.clients.json.JsonpUtils;
import co.elastic.clients.json.jackson.JacksonJsonpMapper;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.github.esrel.internal.ClientApi;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * An {@code _msearch} line pair carries the search it stands for: its indices (one by one) and preference in the
 * header, and the search's whole body, every part of a search the joins send, as the search itself writes it.
 */
class MultiSearchTest {

    private static final JacksonJsonpMapper MAPPER = new JacksonJsonpMapper();
    private static final ObjectMapper JSON = new ObjectMapper();

    @Test
    void shouldWriteEachSearchAsItsHeaderAndItsWholeBody() throws Exception {
        List<FieldValue> keys = new ArrayList<>();
        for (int i = 0; i < 2_000; i++) {
            keys.add(FieldValue.of("user-" + i));
        }
        SearchRequest search = SearchRequest.of(s -> s.index("posts")
                .preference("_local")
                .query(q -> q.bool(b -> b.filter(
                                f -> f.terms(t -> t.field("user_id").terms(v -> v.value(keys))))
                        .must(m -> m.match(t -> t.field("title").query("elasticsearch")))
                        // Sent as written, never through the client's range model (8.15's writes "format" wrongly).
                        .filter(ClientApi.range("date", true, 1700000000000L, "epoch_millis"))))
                .size(20)
                .from(40)
                .sort(o -> o.field(f -> f.field("date").order(SortOrder.Desc)))
                .sort(o -> o.field(f -> f.field("_id").order(SortOrder.Asc)))
                .searchAfter(FieldValue.of(1700000000000L), FieldValue.of("p-9"))
                .source(c -> c.filter(f -> f.includes("title", "user_id")))
                .docvalueFields(d -> d.field("user_id"))
                .collapse(c -> c.field("user_id"))
                .seqNoPrimaryTerm(true)
                .aggregations("users", a -> a.terms(t -> t.field("user_id").size(10)))
                .trackTotalHits(t -> t.enabled(false))
                .trackScores(false));
        SearchRequest count =
                SearchRequest.of(s -> s.index("users,users-archive").size(0).query(Query.of(q -> q.matchAll(m -> m))));

        List<String> lines = lines(new MultiSearch(List.of(search, count)));

        assertThat(lines).hasSize(4);
        assertThat(JSON.readTree(lines.get(0)))
                .isEqualTo(JSON.readTree("{\"index\":[\"posts\"],\"preference\":\"_local\"}"));
        assertThat(JSON.readTree(lines.get(1))).isEqualTo(JSON.readTree(JsonpUtils.toJsonString(search, MAPPER)));
        assertThat(JSON.readTree(lines.get(1)).at("/query/bool/filter/1/range/date"))
                .isEqualTo(JSON.readTree("{\"gte\":1700000000000,\"format\":\"epoch_millis\"}"));
        assertThat(JSON.readTree(lines.get(1)).path("seq_no_primary_term").asBoolean())
                .isTrue();
        assertThat(JSON.readTree(lines.get(1)).has("index")).isFalse();
        assertThat(JSON.readTree(lines.get(2))).isEqualTo(JSON.readTree("{\"index\":[\"users\",\"users-archive\"]}"));
        assertThat(JSON.readTree(lines.get(3))).isEqualTo(JSON.readTree("{\"size\":0,\"query\":{\"match_all\":{}}}"));
    }

    @Test
    void shouldAskForTypedAggregationsAsTheClientsMsearchDoes() {
        assertThat(MultiSearch.endpoint(JsonData.class).queryParameters(new MultiSearch(List.of())))
                .isEqualTo(Map.of("typed_keys", "true"));
        assertThat(MultiSearch.endpoint(JsonData.class).requestUrl(new MultiSearch(List.of())))
                .isEqualTo("/_msearch");
    }

    /** The lines the transport writes: each item of the request, by the client's mapper. */
    private static List<String> lines(MultiSearch m) {
        List<String> out = new ArrayList<>();
        for (Iterator<?> it = m._serializables(); it.hasNext(); ) {
            out.add(JsonpUtils.toJsonString(it.next(), MAPPER));
        }
        return out;
    }
}
