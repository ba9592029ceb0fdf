package io.github.esrel.view;

import co.elastic.clients.elasticsearch.ElasticsearchClient;
import co.elastic.clients.elasticsearch.core.bulk.BulkOperation;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.StringReader;
import java.util.ArrayList;
import java.util.List;

/** Seed 003's photos and users, and the PhotoUserView over them. */
final class Photos {

    private Photos() {}

    static void create(ElasticsearchClient es, String prefix) throws IOException {
        es.indices()
                .create(c -> c.index(prefix + "-users")
                        .settings(s -> s.numberOfShards("2").numberOfReplicas("0")));
        es.indices().create(c -> c.index(prefix + "-photos").withJson(new StringReader("""
            {"settings": {"number_of_shards": 2, "number_of_replicas": 0},
             "mappings": {"properties": {"user_id": {"type": "keyword"}, "title": {"type": "text"},
               "popularity": {"type": "keyword"}}}}""")));
        es.indices().create(c -> c.index(prefix + "-view").withJson(new StringReader("""
            {"settings": {"number_of_shards": 2, "number_of_replicas": 0},
             "mappings": {"properties": {"user_id": {"type": "keyword"}, "title": {"type": "text"},
               "popularity": {"type": "keyword"}, "user_gender": {"type": "keyword"}, "user_hair": {"type": "keyword"},
               "esrel": {"type": "object", "enabled": false}}}}""")));
    }

    static MaterializedView<ObjectNode, ObjectNode> view(ElasticsearchClient es, String prefix) {
        return MaterializedView.of(
                ObjectNode.class,
                ObjectNode.class,
                v -> v.client(es)
                        .name(prefix)
                        .sourceIndex(prefix + "-photos")
                        .parentIndex(prefix + "-users")
                        .parentIdField("user_id")
                        .viewIndex(prefix + "-view")
                        .stateIndex(prefix + "-state")
                        .copyParent("gender", "user_gender")
                        .copyParent("hair", "user_hair"));
    }

    static ObjectNode user(String gender, String hair) {
        return JsonNodeFactory.instance.objectNode().put("gender", gender).put("hair", hair);
    }

    static ObjectNode photo(String userId, String title, String popularity) {
        return JsonNodeFactory.instance
                .objectNode()
                .put("user_id", userId)
                .put("title", title)
                .put("popularity", popularity);
    }

    /** Indexes photos {@code <idPrefix>0..n-1} of a user directly (no view update). */
    static void photos(ElasticsearchClient es, String prefix, String userId, String idPrefix, int n)
            throws IOException {
        for (int from = 0; from < n; from += 1000) {
            List<BulkOperation> ops = new ArrayList<>();
            for (int i = from; i < Math.min(n, from + 1000); i++) {
                ObjectNode p = photo(userId, "photo " + i, i % 3 == 0 ? "high" : "low");
                String id = idPrefix + i;
                ops.add(BulkOperation.of(
                        o -> o.index(x -> x.index(prefix + "-photos").id(id).document(p))));
            }
            if (es.bulk(b -> b.operations(ops)).errors()) {
                throw new IllegalStateException("fixture bulk failed");
            }
        }
    }
}
