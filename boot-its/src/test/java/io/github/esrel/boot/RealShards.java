package io.github.esrel.boot;

import static org.assertj.core.api.Assertions.assertThat;

import co.elastic.clients.elasticsearch.ElasticsearchClient;
import co.elastic.clients.elasticsearch.core.search.Hit;
import io.github.esrel.doc.DocRef;
import java.io.IOException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Where each document really is: one search per shard, restricted to that shard. The same as {@code
 * RoutingMatchesRealityIT.realShards} in client-toolkit, whose test classes these Boot-managed modules do not see
 * (sharing them would need a test jar on the application's class path, which a user's has not).
 */
final class RealShards {

    private RealShards() {}

    static Map<DocRef, Integer> of(ElasticsearchClient es, String index, int shards) throws IOException {
        Map<DocRef, Integer> where = new HashMap<>();
        for (int shard = 0; shard < shards; shard++) {
            int s = shard;
            List<Hit<Void>> hits = es.search(
                            r -> r.index(index)
                                    .preference("_shards:" + s)
                                    .size(1000)
                                    .source(src -> src.fetch(false))
                                    .query(q -> q.matchAll(m -> m)),
                            Void.class)
                    .hits()
                    .hits();
            for (Hit<Void> hit : hits) {
                assertThat(where.put(DocRef.id(hit.id()).withRouting(hit.routing()), s))
                        .as("%s on two shards", hit.id())
                        .isNull();
            }
        }
        return where;
    }
}
