package io.github.esrel.samples.support;

import co.elastic.clients.elasticsearch.ElasticsearchClient;
import java.io.IOException;

/** The index set-up every sample starts with: its indices as it creates them, not as a previous run left them. */
public final class Indices {

    private Indices() {}

    /** Deletes those of {@code indices} that exist. */
    public static void deleteIfExist(ElasticsearchClient es, String... indices) throws IOException {
        for (String index : indices) {
            if (es.indices().exists(e -> e.index(index)).value()) {
                es.indices().delete(d -> d.index(index));
            }
        }
    }

    /** Creates {@code index} with one shard and no replica (the samples run on one node), mapped dynamically. */
    public static void createOneShard(ElasticsearchClient es, String index) throws IOException {
        es.indices()
                .create(c -> c.index(index).settings(s -> s.numberOfShards("1").numberOfReplicas("0")));
    }
}
