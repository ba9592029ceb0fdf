package io.github.esrel.denorm;

import co.elastic.clients.elasticsearch.ElasticsearchClient;
import co.elastic.clients.elasticsearch.core.BulkResponse;
import co.elastic.clients.elasticsearch.core.bulk.BulkOperation;
import co.elastic.clients.elasticsearch.core.search.Hit;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.github.esrel.doc.DocStream;
import java.io.IOException;
import java.io.StringReader;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** Seed 000's users and blog posts, with {@code user.name} denormalized into every post. */
final class Blog {

    static final String POSTS_MAPPING = """
        {"settings": {"number_of_shards": 3, "number_of_replicas": 0},
         "mappings": {"properties": {
           "title": {"type": "text"},
           "user": {"properties": {"id": {"type": "keyword"}, "name": {"type": "keyword"}, "email": {"type": "keyword"}}},
           "edits": {"type": "long"}}}}""";

    final ElasticsearchClient es;
    final String users;
    final String posts;

    Blog(ElasticsearchClient es, String prefix) throws IOException {
        this(es, prefix, 3);
    }

    /** With {@code shards} primary shards for the posts. */
    Blog(ElasticsearchClient es, String prefix, int shards) throws IOException {
        this.es = es;
        this.users = prefix + "-users";
        this.posts = prefix + "-posts";
        es.indices()
                .create(c -> c.index(users).settings(s -> s.numberOfShards("1").numberOfReplicas("0")));
        es.indices()
                .create(c -> c.index(posts)
                        .withJson(new StringReader(
                                POSTS_MAPPING.replace("\"number_of_shards\": 3", "\"number_of_shards\": " + shards))));
    }

    Relation relation() {
        return Relation.of(r -> r.name("post-author")
                .parentIndex(users)
                .childIndex(posts)
                .parentIdField("user.id")
                .copy("name", "user.name")
                .copy("email", "user.email"));
    }

    void user(String id, String name) throws IOException {
        ObjectNode u = JsonNodeFactory.instance
                .objectNode()
                .put("name", name)
                .put("email", name.toLowerCase().replace(' ', '.') + "@example.com");
        es.index(i -> i.index(users).id(id).document(u));
    }

    static ObjectNode post(String userId, String userName, int n) {
        ObjectNode p = JsonNodeFactory.instance
                .objectNode()
                .put("title", "post " + n + " about relationships")
                .put("edits", 0);
        p.putObject("user")
                .put("id", userId)
                .put("name", userName)
                .put("email", userName.toLowerCase().replace(' ', '.') + "@example.com");
        return p;
    }

    /** Creates posts {@code <prefix>0..n-1} of a user, with the given (possibly old) copies. */
    void posts(String userId, String userName, String idPrefix, int n) throws IOException {
        for (int from = 0; from < n; from += 1000) {
            List<BulkOperation> ops = new ArrayList<>();
            for (int i = from; i < Math.min(n, from + 1000); i++) {
                ObjectNode doc = post(userId, userName, i);
                String id = idPrefix + i;
                ops.add(BulkOperation.of(o -> o.index(x -> x.index(posts).id(id).document(doc))));
            }
            BulkResponse r = es.bulk(b -> b.operations(ops));
            if (r.errors()) {
                throw new IllegalStateException("fixture bulk failed: "
                        + r.items().stream()
                                .filter(it -> it.error() != null)
                                .findFirst()
                                .orElseThrow()
                                .error());
            }
        }
        es.indices().refresh(r -> r.index(posts));
    }

    /** Every post, by id (refreshes first). */
    Map<String, Hit<ObjectNode>> all() throws IOException {
        es.indices().refresh(r -> r.index(posts));
        Map<String, Hit<ObjectNode>> all = new HashMap<>();
        try (DocStream s = DocStream.of(b -> b.client(es).index(posts).pageSize(5000))) {
            for (List<Hit<ObjectNode>> page = s.next(); !page.isEmpty(); page = s.next()) {
                page.forEach(h -> all.put(h.id(), h));
            }
        }
        return all;
    }

    static String name(Hit<ObjectNode> h) {
        return h.source().path("user").path("name").asText(null);
    }

    static String userId(Hit<ObjectNode> h) {
        return h.source().path("user").path("id").asText(null);
    }
}
