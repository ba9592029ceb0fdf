package io.github.esrel.samples.blog;

import co.elastic.clients.elasticsearch.ElasticsearchClient;
import co.elastic.clients.elasticsearch._types.SortOptions;
import co.elastic.clients.elasticsearch._types.SortOrder;
import co.elastic.clients.elasticsearch._types.query_dsl.FunctionBoostMode;
import co.elastic.clients.elasticsearch._types.query_dsl.Query;
import co.elastic.clients.elasticsearch.core.bulk.BulkOperation;
import co.elastic.clients.elasticsearch.core.search.Hit;
import io.github.esrel.join.Doc;
import io.github.esrel.join.Group;
import io.github.esrel.join.GroupQuery;
import io.github.esrel.join.Grouping;
import io.github.esrel.join.Groups;
import io.github.esrel.join.Join;
import io.github.esrel.join.JoinQuery;
import io.github.esrel.join.JoinResult;
import io.github.esrel.join.ParentWithChildren;
import io.github.esrel.samples.support.Indices;
import io.github.esrel.samples.support.Sample;
import io.github.esrel.samples.support.Table;
import java.io.IOException;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * Seed 000 §1.1–1.3 and seed 003 part 1: users and their blog posts. The application-side join
 * (one query for the users' keys, one {@code terms} query for their posts) against the denormalized
 * query (the user's name and gender copied into each post): the same answers, and what each costs in
 * round trips. Then seed 003's trap (a broad condition on users, a selective one on posts) meeting
 * the join's fan-out cap, and grouping posts by author with field collapsing, in both of the seed's
 * forms.
 */
public final class BlogSample extends Sample {

    private static final String USERS = "blog-users";
    private static final String POSTS = "blog-posts";
    private static final int USER_COUNT = 1_000;
    private static final int POST_COUNT = 5_000;

    /** A user, as seed 000 stores it. */
    public record User(String name, String gender, String email) {}

    /** The user fields copied into each post (seed 000 §1.2). */
    public record Author(String name, String gender) {}

    /** A blog post: {@code user} holds the author's {@code _id}; {@code author} the denormalized copy. */
    public record Post(String title, String user, int popularity, long date, int seq, Author author) {}

    /** Creates the sample. */
    public BlogSample() {
        super(
                "blog",
                "Users and blog posts: application-side join vs denormalized query, the fan-out cap, grouping by author");
    }

    @Override
    public void run(ElasticsearchClient es, PrintStream out) throws Exception {
        load(es);
        out.printf(
                "%n%,d users (one in ten named John, half of them women) and %,d posts; each post holds its user's _id"
                        + " in \"user\" and a copy of the user's name and gender in \"author\".%n",
                USER_COUNT, POST_COUNT);
        Join join = Join.of(b -> b.client(es));

        johnsPosts(es, join, out);
        popularByWomen(es, join, out);
        trap(es, out);
        grouping(es, out);
    }

    /** Seed 000 §1.1: users named John, then their posts; and the same question asked of the posts alone. */
    private static void johnsPosts(ElasticsearchClient es, Join join, PrintStream out) throws IOException {
        out.println("\n1. The blog posts of users named John (seed 000 §1.1).");
        out.println("   Join.childrenOf: the Johns (query 1), then the best two posts of each John by popularity"
                + " (query 2: terms on \"user\", collapsed per user).");
        JoinResult<User, Post> byJohn = join.childrenOf(JoinQuery.of(
                User.class,
                Post.class,
                q -> q.parents(USERS, p -> p.match(m -> m.field("name").query("John")))
                        .parentSort(SortOptions.of(s -> s.field(f -> f.field("email"))))
                        .children(POSTS, "user")
                        .childSort(SortOptions.of(
                                s -> s.field(f -> f.field("popularity").order(SortOrder.Desc))))
                        .childrenPerParent(2)
                        .parentsPerPage(5)));
        Table t = Table.of("user", "e-mail", "posts", "best two by popularity");
        for (ParentWithChildren<User, Post> p : byJohn.parents()) {
            t.row(
                    p.parent().value().name(),
                    p.parent().value().email(),
                    p.totalChildren(),
                    String.join(
                            " | ",
                            p.children().stream()
                                    .map(c -> c.value().popularity() + " "
                                            + c.value().title())
                                    .toList()));
            for (Doc<Post> c : p.children()) {
                if (!c.value().user().equals(p.parent().id())) {
                    throw new IllegalStateException(
                            "post " + c.id() + " is not by " + p.parent().id());
                }
            }
        }
        t.print(out);
        out.printf(
                "   %s; %d round trips: %s%n",
                byJohn.next().isPresent() ? "first page of Johns (more follow with" + " next())" : "all Johns",
                byJohn.roundTrips(),
                byJohn.requests());

        out.println("\n   The newest 10 posts about \"relationships\" by any John: join vs denormalized query.");
        Query relationships = Query.of(q -> q.match(m -> m.field("title").query("relationships")));
        SortOptions newest = SortOptions.of(s -> s.field(f -> f.field("date").order(SortOrder.Desc)));
        Query johns = Query.of(q -> q.match(m -> m.field("name").query("John")));
        Query byAJohn = Query.of(q -> q.match(m -> m.field("author.name").query("John")));
        joinVsDenormalized(es, join, out, johns, relationships, byAJohn, newest);
    }

    /** Seed 003: photos (posts) filtered by their user's gender. */
    private static void popularByWomen(ElasticsearchClient es, Join join, PrintStream out) throws IOException {
        out.println("\n2. Popular posts whose author is female (seed 003: Photo.objects.filter(user__gender='female',"
                + " popularity='high')).");
        Query popular =
                Query.of(q -> q.range(r -> r.number(n -> n.field("popularity").gte(95.0))));
        SortOptions byPopularity =
                SortOptions.of(s -> s.field(f -> f.field("popularity").order(SortOrder.Desc)));
        SortOptions thenNewest =
                SortOptions.of(s -> s.field(f -> f.field("date").order(SortOrder.Desc)));
        Query women = Query.of(q -> q.term(t -> t.field("gender").value("female")));
        Query byAWoman = Query.of(q -> q.term(t -> t.field("author.gender").value("female")));
        JoinResult<User, Post> joined =
                joinVsDenormalized(es, join, out, women, popular, byAWoman, byPopularity, thenNewest);
        if (joined.plan() == JoinQuery.Plan.CHILDREN_FIRST) {
            out.printf(
                    "   Half the users are women, so the join read the most popular posts first (%d of them) and"
                            + " checked their authors in one search, instead of shipping every woman's key; the denormalized query"
                            + " read no users.%n",
                    joined.childrenRead());
        } else {
            out.printf(
                    "   The join read the keys of %,d women and shipped them in %d terms query; the denormalized"
                            + " query read none.%n",
                    joined.parentsRead(), joined.termsBatches());
        }
    }

    /**
     * The same question asked both ways: the join (users matching {@code userQuery}, then their top ten posts matching
     * {@code postQuery}) and the denormalized query (the top ten posts matching {@code postQuery} whose copied author
     * matches {@code authorQuery}), timed and compared.
     */
    private static JoinResult<User, Post> joinVsDenormalized(
            ElasticsearchClient es,
            Join join,
            PrintStream out,
            Query userQuery,
            Query postQuery,
            Query authorQuery,
            SortOptions... sort)
            throws IOException {
        long t0 = System.nanoTime();
        JoinResult<User, Post> joined = join.childrenWhereParent(JoinQuery.of(
                        User.class,
                        Post.class,
                        q -> q.parents(USERS, userQuery)
                                .children(POSTS, "user")
                                .childQuery(postQuery)
                                .childSort(sort)
                                .childrenPerPage(10)))
                .orThrow();
        long joinMs = ms(t0);
        long t1 = System.nanoTime();
        List<String> denormalized = es
                .search(
                        s -> s.index(POSTS)
                                .size(10)
                                .sort(List.of(sort))
                                .query(q -> q.bool(b -> b.must(postQuery).filter(authorQuery))),
                        Post.class)
                .hits()
                .hits()
                .stream()
                .map(Hit::id)
                .toList();
        long denormMs = ms(t1);
        compare(out, joined, denormalized, joinMs, denormMs);
        return joined;
    }

    private static void compare(
            PrintStream out, JoinResult<User, Post> joined, List<String> denormalized, long joinMs, long denormMs) {
        List<String> joinedIds =
                joined.pairs().stream().map(p -> p.child().id()).toList();
        Table t = Table.of("#", "join: post", "its author (from the join)", "denormalized: post", "same");
        for (int i = 0; i < Math.max(joinedIds.size(), denormalized.size()); i++) {
            String a = i < joinedIds.size() ? joinedIds.get(i) : "-";
            String author = i < joinedIds.size()
                    ? joined.pairs().get(i).parent().value().name()
                    : "-";
            String b = i < denormalized.size() ? denormalized.get(i) : "-";
            t.row(i + 1, a, author, b, a.equals(b) ? "yes" : "NO");
        }
        t.print(out);
        Table cost =
                Table.of("approach", "round trips", "parents read", "keys shipped", "posts read", "ms (one cold call)");
        cost.row(
                "join (" + joined.plan() + ")",
                joined.roundTrips(),
                joined.parentsRead(),
                joined.keysShipped(),
                joined.childrenRead(),
                joinMs);
        cost.row("denormalized query", 1, 0, 0, "-", denormMs);
        cost.print(out);
        if (!joinedIds.equals(denormalized) || joinedIds.isEmpty()) {
            throw new IllegalStateException("the join " + joinedIds + " and the denormalized query " + denormalized
                    + " should give the same posts");
        }
        if (joined.roundTrips() > 2) {
            throw new IllegalStateException("the join should take at most 2 round trips, took " + joined.requests());
        }
        out.println("   Same posts, in the same order. The join needs no copies to keep up to date; the denormalized"
                + " query needs one round trip and reads no users.");
    }

    /** Seed 003 part 1: many users match, few of their posts do. */
    private static void trap(ElasticsearchClient es, PrintStream out) throws IOException {
        out.println("\n3. The scalability trap (seed 003): a broad condition on users, a selective one on posts.");
        Join capped = Join.of(b -> b.client(es).maxParents(200));
        out.println(
                "   With a fan-out cap of 200 parents per call (default 10,000), \"popular posts of female authors\","
                        + " joined keys-first (every woman's key, then the posts):");
        JoinQuery<User, Post> popularByWomen = JoinQuery.of(
                User.class,
                Post.class,
                q -> q.parents(USERS, p -> p.term(t -> t.field("gender").value("female")))
                        .children(POSTS, "user")
                        .childQuery(c ->
                                c.range(r -> r.number(n -> n.field("popularity").gte(95.0))))
                        .childrenPerPage(10)
                        .plan(JoinQuery.Plan.KEYS_FIRST));
        JoinResult<User, Post> refused = capped.childrenWhereParent(popularByWomen);
        if (refused.status() != JoinResult.Status.CAP_EXCEEDED
                || refused.roundTrips() != 1
                || refused.keysShipped() != 0) {
            throw new IllegalStateException(
                    "expected the join to stop at its cap after counting: " + refused.describe());
        }
        out.printf(
                "   -> %s after %d round trip, %d keys shipped:%n      %s%n",
                refused.status(), refused.roundTrips(), refused.keysShipped(), refused.advice());
        JoinResult<User, Post> auto = capped.childrenWhereParent(
                popularByWomen.toBuilder().plan(JoinQuery.Plan.AUTO).build());
        out.printf("   The default plan (AUTO) under the same cap: %s%n", auto.describe());
        if (auto.complete() && auto.plan() != JoinQuery.Plan.CHILDREN_FIRST) {
            throw new IllegalStateException("over the cap only children-first can answer: " + auto.describe());
        }

        out.println("   \"The first 5 users, by e-mail, who wrote a post about percolators\" (only one user did):");
        JoinResult<User, Post> streamed = capped.childrenOf(JoinQuery.of(
                User.class,
                Post.class,
                q -> q.parents(USERS, p -> p.matchAll(m -> m))
                        .parentSort(SortOptions.of(s -> s.field(f -> f.field("email"))))
                        .children(POSTS, "user")
                        .childQuery(c -> c.match(m -> m.field("title").query("percolators")))
                        .includeChildless(false)
                        .parentsPerPage(5)));
        if (streamed.status() != JoinResult.Status.PARTIAL || streamed.parentsRead() != 200) {
            throw new IllegalStateException("expected the join to stream users up to its cap: " + streamed.describe());
        }
        out.printf(
                "   -> %s: read %d users in %d round trips, found %d with such a post; next() would read on.%n      %s%n",
                streamed.status(),
                streamed.parentsRead(),
                streamed.roundTrips(),
                streamed.parents().size(),
                streamed.advice());
        capped.close(streamed.next().orElseThrow());
        long denormalized = es.count(c ->
                        c.index(POSTS).query(q -> q.match(m -> m.field("title").query("percolators"))))
                .count();
        out.printf("   The posts alone answer in one query: %d post(s) about percolators.%n", denormalized);
    }

    /** Seed 000 §1.3: posts about relationships, grouped by author, best author first. */
    private static void grouping(ElasticsearchClient es, PrintStream out) {
        out.println("\n4. Grouping posts about \"relationships\" by author, authors ordered by their best post's score"
                + " (seed 000 §1.3, field collapsing on author.name.raw).");
        Grouping grouping = Grouping.of(b -> b.client(es));
        // Many titles are alike, so scores tie; a hair of recency (seq / 10^6) breaks the ties, so that
        // the order of groups is defined and both forms can be compared group by group.
        Query relevantThenRecent = Query.of(q -> q.functionScore(fs -> fs.query(
                        m -> m.match(mm -> mm.field("title").query("relationships modeling")))
                .functions(f -> f.fieldValueFactor(v -> v.field("seq").factor(1e-6)))
                .boostMode(FunctionBoostMode.Sum)));
        GroupQuery<Post> byAuthor = GroupQuery.of(
                Post.class,
                g -> g.index(POSTS)
                        .query(relevantThenRecent)
                        .field("author.name.raw")
                        .groups(5)
                        .perGroup(3));
        Groups<Post> collapsed = grouping.collapse(byAuthor);
        Groups<Post> terms = grouping.termsAggregation(byAuthor);
        Table t = Table.of("author", "best score", "posts", "top posts (collapse)", "same in terms form");
        for (int i = 0; i < collapsed.groups().size(); i++) {
            Group<Post> c = collapsed.groups().get(i);
            Group<Post> a = i < terms.groups().size() ? terms.groups().get(i) : null;
            boolean same = a != null
                    && a.key().equals(c.key())
                    && a.total() == c.total()
                    && a.hits().stream()
                            .map(Doc::id)
                            .toList()
                            .equals(c.hits().stream().map(Doc::id).toList());
            t.row(
                    c.key(),
                    String.format("%.3f", c.bestScore()),
                    c.total(),
                    String.join(" | ", c.values().stream().map(Post::title).toList()),
                    same ? "yes" : "NO");
            if (!same) {
                throw new IllegalStateException("the two forms disagree on group " + (i + 1) + ": " + c + " vs " + a);
            }
        }
        t.print(out);
        out.printf(
                "   collapse + inner_hits: %d round trip. terms + max(_score) + top_hits: %s, %d round trip(s)%s.%n",
                collapsed.roundTrips(),
                terms.form(),
                terms.roundTrips(),
                terms.note() == null ? "" : " (" + terms.note() + ")");
    }

    private static void load(ElasticsearchClient es) throws IOException {
        Indices.deleteIfExist(es, USERS, POSTS);
        es.indices()
                .create(c -> c.index(USERS)
                        .settings(s -> s.numberOfShards("2").numberOfReplicas("0"))
                        .mappings(m -> m.properties("name", p -> p.text(t -> t))
                                .properties("gender", p -> p.keyword(k -> k))
                                .properties("email", p -> p.keyword(k -> k))));
        es.indices()
                .create(c -> c.index(POSTS)
                        .settings(s -> s.numberOfShards("2").numberOfReplicas("0"))
                        .mappings(m -> m.properties("title", p -> p.text(t -> t))
                                .properties("user", p -> p.keyword(k -> k))
                                .properties("popularity", p -> p.integer(i -> i))
                                .properties("date", p -> p.long_(l -> l))
                                .properties("seq", p -> p.integer(i -> i))
                                .properties(
                                        "author",
                                        p -> p.object(o -> o.properties(
                                                        "name",
                                                        x -> x.text(t -> t.fields("raw", f -> f.keyword(k -> k))))
                                                .properties("gender", x -> x.keyword(k -> k))))));
        String[] first = {"John", "Mary", "Peter", "Anna", "Paul", "Lisa", "Mark", "Sara", "Tom", "Emma"};
        String[] last = {"Smith", "Doe", "Jones", "Brown", "Clark", "Lewis", "Walker", "Young"};
        List<User> users = new ArrayList<>();
        List<BulkOperation> ops = new ArrayList<>();
        for (int i = 0; i < USER_COUNT; i++) {
            String name = first[i % first.length] + " " + last[(i / first.length) % last.length];
            User u = new User(name, i % 2 == 0 ? "male" : "female", String.format("user%04d@example.com", i));
            users.add(u);
            String id = "u" + i;
            ops.add(BulkOperation.of(o -> o.index(x -> x.index(USERS).id(id).document(u))));
        }
        String[] words = {
            "relationships", "modeling", "elasticsearch", "joins", "scaling", "nested", "documents", "search"
        };
        SplittableRandom r = new SplittableRandom(2024);
        for (int j = 0; j < POST_COUNT; j++) {
            int u = r.nextInt(USER_COUNT);
            String title = j == 4_321
                    ? "percolators explained"
                    : words[r.nextInt(words.length)] + " " + words[r.nextInt(words.length)] + " "
                            + words[r.nextInt(words.length)];
            User author = users.get(u);
            Post p = new Post(
                    title,
                    "u" + u,
                    r.nextInt(100),
                    1_700_000_000_000L + j * 60_000L,
                    j,
                    new Author(author.name(), author.gender()));
            String id = "p" + j;
            ops.add(BulkOperation.of(o -> o.index(x -> x.index(POSTS).id(id).document(p))));
        }
        for (int from = 0; from < ops.size(); from += 3_000) {
            List<BulkOperation> chunk = ops.subList(from, Math.min(from + 3_000, ops.size()));
            if (es.bulk(b -> b.operations(chunk)).errors()) {
                throw new IllegalStateException("bulk indexing of the blog failed");
            }
        }
        es.indices().refresh(x -> x.index(USERS, POSTS));
    }

    private static long ms(long start) {
        return (System.nanoTime() - start) / 1_000_000;
    }
}
