package io.github.esrel.join;

import static io.github.esrel.join.BlogQuestions.everyone;
import static io.github.esrel.join.BlogQuestions.everyoneWhere;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import co.elastic.clients.elasticsearch.ElasticsearchClient;
import io.github.esrel.join.Blog.Post;
import io.github.esrel.testenv.Cluster;
import io.github.esrel.testenv.EsCluster;
import io.github.esrel.testenv.EsrelTest;
import java.io.IOException;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Joins that fail, and say why: a missing index named, a failed shard failing the join rather than joining the
 * children of the shards that answered, a child key that cannot be collapsed on, a source that does not map to the
 * document class.
 *
 * <p>On the node the join ITs share, with its {@link Blog} (written once for all of them).
 */
@EsrelTest
class JoinFailuresIT {

    @Cluster
    static final EsCluster cluster = EsCluster.builder().shared().build();

    private static ElasticsearchClient es;

    @BeforeAll
    static void blog() throws IOException {
        es = cluster.client();
        Blog.seed(es);
    }

    @Test
    void shouldNameAMissingIndex() {
        Join join = Join.of(b -> b.client(es));
        assertThatThrownBy(() ->
                        join.childrenWhereParent(everyone(b -> b.parents("no-such-users", q -> q.matchAll(m -> m)))))
                .isInstanceOf(JoinException.class)
                .hasMessageContaining("no such index [no-such-users]")
                .satisfies(e -> assertThat(((JoinException) e).status()).isEqualTo(404));
        assertThatThrownBy(() -> join.childrenWhereParent(
                        everyoneWhere(b -> b.parents("no-such-users", q -> q.matchAll(m -> m)))))
                .isInstanceOf(JoinException.class)
                .hasMessageContaining("no such index [no-such-users]")
                .satisfies(e -> assertThat(((JoinException) e).status()).isEqualTo(404));
    }

    @Test
    void shouldFailRatherThanJoinTheChildrenOfTheShardsThatAnswered() throws IOException {
        // A child index whose title is a number: a match on it fails on that index's shard only, and Elasticsearch
        // answers with the hits of the other shards unless told not to. A join on that answer would be short.
        es.indices()
                .create(c -> c.index("posts-numbered")
                        .settings(s -> s.numberOfShards("1").numberOfReplicas("0"))
                        .mappings(m -> m.properties("title", p -> p.long_(l -> l))
                                .properties("user_id", p -> p.keyword(k -> k))));
        try {
            Join join = Join.of(b -> b.client(es));
            for (JoinQuery.Plan plan : JoinQuery.Plan.values()) {
                assertThatThrownBy(() -> join.childrenWhereParent(everyoneWhere(b -> b.children(
                                        "posts,posts-numbered", "user_id")
                                .childQuery(c -> c.match(m -> m.field("title").query("relationships complicated")))
                                .plan(plan))))
                        .as(plan.toString())
                        .isInstanceOf(JoinException.class)
                        .hasMessageContaining("1 of 4 shards failed")
                        .hasMessageContaining("[posts-numbered] on node")
                        .satisfies(e -> assertThat(((JoinException) e).status()).isEqualTo(400));
            }
        } finally {
            es.indices().delete(d -> d.index("posts-numbered"));
        }
    }

    @Test
    void shouldExplainThatTheChildKeyMustBeAKeywordToCollapseOn() {
        Join join = Join.of(b -> b.client(es));
        assertThatThrownBy(() -> join.childrenOf(everyoneWhere(b -> b.children("posts", "title"))))
                .isInstanceOf(JoinException.class)
                .hasMessageContaining("keyword or numeric")
                .satisfies(e -> assertThat(((JoinException) e).status()).isEqualTo(400));
    }

    /** A class whose field cannot hold the stored value. */
    record BadUser(java.time.Duration name) {}

    @Test
    void shouldReportASourceThatDoesNotMapToTheDocumentClass() {
        Join join = Join.of(b -> b.client(es));
        assertThatThrownBy(() -> join.childrenWhereParent(JoinQuery.of(
                        BadUser.class,
                        Post.class,
                        b -> b.parents("users", q -> q.matchAll(m -> m)).children("posts", "user_id"))))
                .isInstanceOf(JoinException.class)
                .hasMessageContaining("cannot map");
    }
}
