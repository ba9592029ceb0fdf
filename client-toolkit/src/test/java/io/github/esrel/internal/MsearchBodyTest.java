package io.github.esrel.internal;

import static org.assertj.core.api.Assertions.assertThat;

import co.elastic.clients.elasticsearch._types.FieldValue;
import co.elastic.clients.elasticsearch._types.SortOrder;
import co.elastic.clients.elasticsearch.core.SearchRequest;
import co.elastic.clients.elasticsearch.core.msearch.RequestItem;
import co.elastic.clients.json.JsonpUtils;
import co.elastic.clients.json.jackson.JacksonJsonpMapper;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * An {@code _msearch} item carries the same body as the search it stands for, whichever way the client line builds it
 * (a typed copy on 9.3+, the search's JSON elsewhere): every part of a search the joins send.
 */
class MsearchBodyTest {

    private static final JacksonJsonpMapper MAPPER = new JacksonJsonpMapper();

    @Test
    void shouldCarryTheWholeBodyOfTheSearch() throws Exception {
        List<FieldValue> keys = new ArrayList<>();
        for (int i = 0; i < 2_000; i++) {
            keys.add(FieldValue.of("user-" + i));
        }
        SearchRequest search = SearchRequest.of(s -> s.index("posts")
                .preference("_local")
                .query(q -> q.bool(b -> b.filter(
                                f -> f.terms(t -> t.field("user_id").terms(v -> v.value(keys))))
                        .must(m -> m.match(t -> t.field("title").query("elasticsearch")))))
                .size(20)
                .from(40)
                .sort(o -> o.field(f -> f.field("date").order(SortOrder.Desc)))
                .sort(o -> o.field(f -> f.field("_id").order(SortOrder.Asc)))
                .searchAfter(FieldValue.of(1700000000000L), FieldValue.of("p-9"))
                .source(c -> c.filter(f -> f.includes("title", "user_id")))
                .docvalueFields(d -> d.field("user_id"))
                .collapse(c -> c.field("user_id"))
                .aggregations("users", a -> a.terms(t -> t.field("user_id").size(10)))
                .trackTotalHits(t -> t.enabled(false))
                .trackScores(false));

        RequestItem item = RequestItem.of(i -> ClientApi.msearchBody(i.header(h -> h.index("posts")), search, MAPPER));

        ObjectMapper json = new ObjectMapper();
        assertThat(json.readTree(JsonpUtils.toJsonString(item.body(), MAPPER)))
                .isEqualTo(json.readTree(JsonpUtils.toJsonString(search, MAPPER)));
    }
}
