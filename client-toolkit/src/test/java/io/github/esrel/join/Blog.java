package io.github.esrel.join;

import static org.assertj.core.api.Assertions.assertThat;

import co.elastic.clients.elasticsearch.ElasticsearchClient;
import co.elastic.clients.elasticsearch._types.mapping.TypeMapping;
import co.elastic.clients.elasticsearch.core.BulkResponse;
import co.elastic.clients.elasticsearch.core.bulk.BulkOperation;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

/**
 * Seed 000's blog, the data the join ITs ask about: {@value #USERS} users (a John every fourth, one of them, {@link
 * #CHILDLESS}, without a post; women and men in turn) and {@value #POSTS} posts, each carrying its author's fields too
 * (the denormalized form the joins' answers are checked against). Stored in {@code users} (2 shards), {@code posts} (3
 * shards) and {@code posts7} (2 shards, {@code index.max_terms_count} 7, so that keys go in terms batches).
 *
 * <p>The join ITs share one node: the first class that runs on it writes the blog ({@link #seed}), the others find it
 * there. A test that edits parents or children does it on indices of its own, made with {@link #createUsers}, {@link
 * #createPosts} and {@link #bulk}.
 */
final class Blog {

    /** A user, as the seed stores it. */
    record User(String name, String gender, String handle, int n) {}

    /** The user fields copied into each post (the denormalized form). */
    record Author(String name, String gender) {}

    /** A blog post; {@code user_id} refers to the user's {@code _id}, {@code user_handle} to its handle. */
    record Post(String title, String user_id, String user_handle, int popularity, long date, Author user) {}

    static final int USERS = 40;
    static final int POSTS = 400;
    /** A John who wrote nothing. */
    static final int CHILDLESS = 4;

    /** The users, {@code _id} {@code "u" + i} for the i-th. */
    static final List<User> users = users();
    /** The posts, {@code _id} {@code "p" + j} for the j-th. */
    static final List<Post> posts = posts();

    private Blog() {}

    private static List<User> users() {
        List<User> users = new ArrayList<>();
        String[] first = {"John", "Jane", "Mary", "Peter"};
        for (int i = 0; i < USERS; i++) {
            users.add(new User(
                    first[i % 4] + " Surname" + i, i % 2 == 0 ? "female" : "male", String.format("h%02d", i), i));
        }
        return List.copyOf(users);
    }

    private static List<Post> posts() {
        List<Post> posts = new ArrayList<>();
        for (int j = 0; j < POSTS; j++) {
            int u = (j * 7 + 1) % USERS;
            if (u == CHILDLESS) {
                u = CHILDLESS + 1;
            }
            User user = users.get(u);
            posts.add(new Post(
                    j % 3 == 0 ? "relationships are complicated" : "another topic",
                    "u" + u,
                    user.handle(),
                    (j * 37) % POSTS,
                    1_000_000L + j,
                    new Author(user.name(), user.gender())));
        }
        return List.copyOf(posts);
    }

    /**
     * Writes the blog to the node of {@code es}, unless a class that ran before on the same node did.
     *
     * @param es the client of the shared node
     */
    static synchronized void seed(ElasticsearchClient es) throws IOException {
        if (es.indices().exists(e -> e.index("users", "posts", "posts7")).value()) {
            return;
        }
        createUsers(es, "users", 2, Map.of());
        createPosts(es, "posts", 3, Map.of());
        createPosts(es, "posts7", 2, Map.of("index.max_terms_count", "7"));
        bulk(es, "users", IntStream.range(0, USERS).boxed().collect(Collectors.toMap(i -> "u" + i, users::get)));
        Map<String, Object> byId =
                IntStream.range(0, POSTS).boxed().collect(Collectors.toMap(j -> "p" + j, posts::get));
        bulk(es, "posts", byId);
        bulk(es, "posts7", byId);
    }

    /** An index of users (no replica), with the blog's mapping and {@code settings} besides. */
    static void createUsers(ElasticsearchClient es, String index, int shards, Map<String, String> settings)
            throws IOException {
        es.indices()
                .create(c -> c.index(index)
                        .settings(s -> {
                            s.numberOfShards(String.valueOf(shards)).numberOfReplicas("0");
                            settings.forEach((k, v) -> s.otherSettings(k, co.elastic.clients.json.JsonData.of(v)));
                            return s;
                        })
                        .mappings(TypeMapping.of(m -> m.properties(
                                        "name", p -> p.text(t -> t.fields("raw", f -> f.keyword(k -> k))))
                                .properties("gender", p -> p.keyword(k -> k))
                                .properties("handle", p -> p.keyword(k -> k))
                                .properties("n", p -> p.integer(i -> i)))));
    }

    /** An index of posts (no replica), with the blog's mapping and {@code settings} besides. */
    static void createPosts(ElasticsearchClient es, String index, int shards, Map<String, String> settings)
            throws IOException {
        es.indices()
                .create(c -> c.index(index)
                        .settings(s -> {
                            s.numberOfShards(String.valueOf(shards)).numberOfReplicas("0");
                            settings.forEach((k, v) -> s.otherSettings(k, co.elastic.clients.json.JsonData.of(v)));
                            return s;
                        })
                        .mappings(TypeMapping.of(m -> m.properties("title", p -> p.text(t -> t))
                                .properties("user_id", p -> p.keyword(k -> k))
                                .properties("user_handle", p -> p.keyword(k -> k))
                                .properties("popularity", p -> p.integer(i -> i))
                                .properties("date", p -> p.long_(l -> l))
                                .properties(
                                        "user",
                                        p -> p.object(o -> o.properties(
                                                        "name",
                                                        x -> x.text(t -> t.fields("raw", f -> f.keyword(k -> k))))
                                                .properties("gender", x -> x.keyword(k -> k)))))));
    }

    /** Indexes {@code docs} by {@code _id} in bulks of 5,000, checks that none failed, and refreshes the index. */
    static void bulk(ElasticsearchClient es, String index, Map<String, Object> docs) throws IOException {
        List<BulkOperation> ops = new ArrayList<>();
        List<Map.Entry<String, Object>> entries = new ArrayList<>(docs.entrySet());
        for (int from = 0; from < entries.size(); from += 5_000) {
            ops.clear();
            for (Map.Entry<String, Object> e : entries.subList(from, Math.min(from + 5_000, entries.size()))) {
                ops.add(BulkOperation.of(
                        o -> o.index(i -> i.index(index).id(e.getKey()).document(e.getValue()))));
            }
            BulkResponse r = es.bulk(b -> b.operations(ops));
            assertThat(r.errors()).as("bulk into " + index).isFalse();
        }
        es.indices().refresh(r -> r.index(index));
    }
}
