package io.github.esrel.join;

import co.elastic.clients.elasticsearch.ElasticsearchClient;
import co.elastic.clients.elasticsearch._types.SortOptions;
import co.elastic.clients.elasticsearch._types.SortOrder;
import co.elastic.clients.elasticsearch.core.search.Hit;
import io.github.esrel.internal.ClientApi;
import io.github.esrel.join.Blog.Post;
import io.github.esrel.join.Blog.User;
import java.io.IOException;
import java.util.Comparator;
import java.util.List;
import java.util.function.Function;

/**
 * The questions the join ITs ask of the {@link Blog} more than once, each to be narrowed by the test ({@code more}),
 * and how they compare answers.
 */
final class BlogQuestions {

    private BlogQuestions() {}

    /** The users named John, by handle, each with their posts, most popular first. */
    static JoinQuery<User, Post> johns(Function<JoinQuery.Builder<User, Post>, JoinQuery.Builder<User, Post>> more) {
        return more.apply(JoinQuery.builder(User.class, Post.class)
                        .parents("users", q -> q.match(m -> m.field("name").query("John")))
                        .parentSort(SortOptions.of(s -> s.field(f -> f.field("handle"))))
                        .children("posts", "user_id")
                        .childSort(SortOptions.of(
                                s -> s.field(f -> f.field("popularity").order(SortOrder.Desc)))))
                .build();
    }

    /** Every user, by handle, with their posts. */
    static JoinQuery<User, Post> everyone(Function<JoinQuery.Builder<User, Post>, JoinQuery.Builder<User, Post>> more) {
        return more.apply(JoinQuery.builder(User.class, Post.class)
                        .parents("users", q -> q.matchAll(m -> m))
                        .parentSort(SortOptions.of(s -> s.field(f -> f.field("handle"))))
                        .children("posts", "user_id"))
                .build();
    }

    /** Every user's posts, joined keys-first: the tests of that plan's mechanics (batches, round trips) pin it. */
    static JoinQuery<User, Post> everyoneWhere(
            Function<JoinQuery.Builder<User, Post>, JoinQuery.Builder<User, Post>> more) {
        return everyone(b -> more.apply(b.plan(JoinQuery.Plan.KEYS_FIRST)));
    }

    /** The posts of female authors with a popularity of 300 or more, most popular first. */
    static JoinQuery<User, Post> popularByWomen(
            Function<JoinQuery.Builder<User, Post>, JoinQuery.Builder<User, Post>> more) {
        return more.apply(JoinQuery.builder(User.class, Post.class)
                        .parents("users", q -> q.term(t -> t.field("gender").value("female")))
                        .children("posts", "user_id")
                        .childQuery(ClientApi.range("popularity", true, 300))
                        .childSort(SortOptions.of(
                                s -> s.field(f -> f.field("popularity").order(SortOrder.Desc)))))
                .build();
    }

    /** The same question as {@link #popularByWomen} asked of the denormalized posts: one query. */
    static List<String> denormalizedPopularByWomen(ElasticsearchClient es, String index, int from, int size)
            throws IOException {
        return es
                .search(
                        s -> s.index(index)
                                .from(from)
                                .size(size)
                                .query(q -> q.bool(b -> b.filter(f -> f.term(
                                                t -> t.field("user.gender").value("female")))
                                        .must(ClientApi.range("popularity", true, 300))))
                                .sort(so -> so.field(f -> f.field("popularity").order(SortOrder.Desc))),
                        Post.class)
                .hits()
                .hits()
                .stream()
                .map(Hit::id)
                .toList();
    }

    /** Most popular first. */
    static Comparator<Post> byPopularity() {
        return Comparator.comparingInt(Post::popularity).reversed();
    }

    /** A join's answer, to compare with another's: each child's id, its parent's id and the parent as read. */
    static List<String> answer(JoinResult<User, Post> r) {
        return r.pairs().stream()
                .map(p -> p.child().id() + "<-" + p.parent().id() + ":"
                        + p.parent().value())
                .toList();
    }
}
