package io.github.esrel.benchmarks;

import co.elastic.clients.elasticsearch.ElasticsearchClient;
import co.elastic.clients.elasticsearch._types.FieldValue;
import co.elastic.clients.elasticsearch._types.SortOptions;
import co.elastic.clients.elasticsearch._types.SortOrder;
import co.elastic.clients.elasticsearch._types.query_dsl.Query;
import co.elastic.clients.elasticsearch.core.SearchRequest;
import co.elastic.clients.elasticsearch.core.SearchResponse;
import co.elastic.clients.elasticsearch.core.bulk.BulkOperation;
import co.elastic.clients.elasticsearch.core.search.Hit;
import co.elastic.clients.json.JsonData;
import co.elastic.clients.transport.endpoints.SimpleEndpoint;
import io.github.esrel.join.Join;
import io.github.esrel.join.JoinQuery;
import io.github.esrel.join.JoinResult;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * An application-side join of 10,000 parents against the equivalent query on denormalized children,
 * on the same node and data (seed 000 §1.1 vs §1.2): "the 20 newest posts mentioning elasticsearch
 * by users from one country", where 10,000 of 20,000 users are from that country. The
 * denormalized query filters on the country copied into each post. The join runs with its default
 * plan ({@code AUTO}, which picks children-first here: read the newest matching posts and check their
 * authors) and pinned to keys-first (read the 10,000 users' keys, then one {@code terms} query),
 * keyed on {@code _id} with the parents read along and on a keyword copy of the id read from doc
 * values; the keys-first steps are also timed alone. A second, selective question (users aged 18,
 * 1 in 60) shows AUTO choosing keys-first. Goals (issue #33): the broad question at most 2.5x the denormalized query,
 * the selective one at most 2x, in two round trips.
 */
final class JoinBenchmark {

    private static final String USERS = "bench-join-users";

    /**
     * {@code POST /users/_search} answered as raw JSON (only the hits' fields), as esrel reads keys from doc values:
     * elasticsearch-java's own endpoint type, so that the typed client's decoding is not what is measured.
     */
    private static final SimpleEndpoint<SearchRequest, JsonData> RAW_SEARCH = new SimpleEndpoint<>(
            "esrel.bench.search",
            r -> "POST",
            r -> "/" + USERS + "/_search",
            r -> Map.of(),
            r -> Map.of("filter_path", "hits.total,hits.hits.fields"),
            r -> Map.of("Content-Type", "application/json"),
            r -> r,
            JsonData._DESERIALIZER);

    private static final String POSTS = "bench-join-posts";
    private static final int USER_COUNT = 20_000;
    private static final int POST_COUNT = 40_000;
    private static final int WARMUPS = 20;
    private static final int ROUNDS = 61;
    /** The children children-first reads in its first round trip here (Join.MIN_PROBE). */
    private static final int PROBE = 100;
    /** What it reads when the question is asked again: 20 + 2.5 sqrt(20) over the share of matching authors (1/2). */
    private static final int BOUNDED_PROBE = 63;

    private final ElasticsearchClient es;
    private final PrintStream out;
    private final BenchRecord record;

    /** A user; {@code id} repeats the {@code _id} in a keyword field, so that a join can read keys from doc values. */
    record User(String id, String name, String country, int age) {}

    record Author(String country, int age) {}

    record Post(String title, String user_id, long date, Author user) {}

    JoinBenchmark(ElasticsearchClient es, PrintStream out, BenchRecord record) {
        this.record = record;
        this.es = es;
        this.out = out;
    }

    void run() throws Exception {
        long t0 = System.nanoTime();
        load();
        out.printf(
                "%nApplication-side join vs denormalized query (%,d users, %,d posts, indexed in %.1f s)%n",
                USER_COUNT, POST_COUNT, (System.nanoTime() - t0) / 1e9);

        Query fromNl = Query.of(q -> q.term(t -> t.field("country").value("nl")));
        Query mentions = Query.of(q -> q.match(m -> m.field("title").query("elasticsearch")));
        SortOptions newest = SortOptions.of(s -> s.field(f -> f.field("date").order(SortOrder.Desc)));
        Join join = Join.of(b -> b.client(es));
        JoinQuery<User, Post> auto = JoinQuery.of(
                User.class,
                Post.class,
                b -> b.parents(USERS, fromNl)
                        .children(POSTS, "user_id")
                        .childQuery(mentions)
                        .childSort(newest)
                        .childrenPerPage(20));
        JoinQuery<User, Post> eager =
                auto.toBuilder().plan(JoinQuery.Plan.KEYS_FIRST).build();
        JoinQuery<User, Post> byField = eager.toBuilder()
                .parentFetch(JoinQuery.ParentFetch.LAZY)
                .parentKey("id")
                .build();
        // A selective parent condition (users aged 18: 1 in 60), where AUTO joins keys-first.
        Query aged18 = Query.of(q -> q.term(t -> t.field("age").value(18)));
        JoinQuery<User, Post> selective =
                auto.toBuilder().parents(USERS, aged18).build();

        // Every variant answers the same question as its denormalized query: check before timing.
        List<String> denormalizedIds = denormalized("user.country", "nl", mentions, newest);
        JoinResult<User, Post> autoResult = join.childrenWhereParent(auto).orThrow();
        JoinResult<User, Post> eagerResult = join.childrenWhereParent(eager).orThrow();
        JoinResult<User, Post> byFieldResult = join.childrenWhereParent(byField).orThrow();
        for (JoinResult<User, Post> r : List.of(autoResult, eagerResult, byFieldResult)) {
            List<String> ids = r.pairs().stream().map(p -> p.child().id()).toList();
            if (!ids.equals(denormalizedIds)
                    || ids.size() != 20
                    || !r.pairs().stream()
                            .allMatch(p -> p.parent().value() == null
                                    || "nl".equals(p.parent().value().country()))) {
                throw new IllegalStateException("the join and the denormalized query disagree: " + ids + " vs "
                        + denormalizedIds + " (" + r.describe() + ")");
            }
        }
        List<String> selectiveIds = denormalized("user.age", "18", mentions, newest);
        JoinResult<User, Post> selectiveResult =
                join.childrenWhereParent(selective).orThrow();
        if (!selectiveResult.pairs().stream().map(p -> p.child().id()).toList().equals(selectiveIds)) {
            throw new IllegalStateException(
                    "the selective join and its denormalized query disagree: " + selectiveResult.describe());
        }
        List<FieldValue> keys = keys(fromNl);
        List<FieldValue> keys18 = parentsAged18(aged18).hits().hits().stream()
                .map(h -> FieldValue.of(h.id()))
                .toList();
        // Children-first's steps alone: the posts it reads in the child order with their authors' keys, and
        // the check of which authors match.
        List<String> authors = probe(mentions, newest, PROBE).hits().hits().stream()
                .map(h -> h.fields().get("user_id").toJson().asJsonArray().getString(0))
                .distinct()
                .toList();

        // Children-first's read when the question is asked again: as many posts as the share of matching authors says
        // hold the page, bounded by where the last such read ended (esrel's ChildOrderBounds).
        List<Hit<JsonData>> lastRead =
                probe(mentions, newest, BOUNDED_PROBE).hits().hits();
        long lastDate = lastRead.get(lastRead.size() - 1).sort().get(0).longValue();
        Query boundedMentions = Query.of(q -> q.bool(b -> b.must(mentions)
                .filter(f -> f.range(r -> r.untyped(u -> u.field("date").gte(JsonData.of(lastDate)))))));
        // Interleaved rounds (every variant once per round), so that the machine's drift hits all alike.
        Timer.Sample[] ns = interleavedMedians(
                WARMUPS,
                ROUNDS,
                () -> denormalized("user.country", "nl", mentions, newest),
                () -> join.childrenWhereParent(auto).orThrow(),
                () -> join.childrenWhereParent(eager).orThrow(),
                () -> join.childrenWhereParent(byField).orThrow(),
                () -> keys(fromNl),
                () -> docValueKeys(fromNl),
                () -> childrenOf(keys, mentions, newest),
                () -> denormalized("user.age", "18", mentions, newest),
                () -> join.childrenWhereParent(selective).orThrow(),
                () -> es.cluster().health(),
                () -> es.search(s -> s.index(USERS).size(0).trackTotalHits(t -> t.enabled(false)), Void.class),
                // A new Join per call: nothing cached (parent count, the condition's match count).
                () -> Join.of(b -> b.client(es)).childrenWhereParent(auto).orThrow(),
                () -> Join.of(b -> b.client(es)).childrenWhereParent(selective).orThrow(),
                () -> probe(mentions, newest, PROBE),
                () -> probe(mentions, newest, PROBE / 2),
                () -> es.search(
                        s -> s.index(USERS)
                                .size(authors.size())
                                .query(q -> q.bool(b -> b.filter(f -> f.ids(i -> i.values(authors)))
                                        .filter(fromNl))),
                        User.class),
                () -> parentsAged18(aged18),
                () -> childrenOf(keys18, mentions, newest),
                () -> probe(mentions, newest, BOUNDED_PROBE),
                () -> probe(boundedMentions, newest, BOUNDED_PROBE));
        Timer.Sample denormNs = ns[0];

        out.printf(
                "  question: the 20 newest posts mentioning \"elasticsearch\" by users from nl (%,d of %,d users)%n",
                USER_COUNT / 2, USER_COUNT);
        // What the timed rows of the default plan send: the same question asked again within the minute.
        JoinResult<User, Post> again = join.childrenWhereParent(auto).orThrow();
        JoinResult<User, Post> selectiveAgain =
                join.childrenWhereParent(selective).orThrow();
        out.printf("  %-78s %8s %6s %8s%n", "what", "ms", "trips", "ratio");
        row("denormalized query: posts filtered on user.country (baseline)", denormNs, 1, denormNs);
        row(
                "join, default plan",
                " (AUTO chose " + autoResult.plan() + ", read " + autoResult.childrenRead() + " posts)",
                ns[1],
                again.roundTrips(),
                denormNs);
        row(
                "join, default plan, first call of a new Join (no count cached)",
                ns[11],
                autoResult.roundTrips(),
                denormNs);
        row(
                "join, KEYS_FIRST, key _id, parents read with their keys (EAGER)",
                ns[2],
                eagerResult.roundTrips(),
                denormNs);
        row(
                "join, KEYS_FIRST, key = keyword field \"id\" (doc values), LAZY",
                ns[3],
                byFieldResult.roundTrips(),
                denormNs);
        row("  step alone: 10,000 parent _ids (_source off, typed client)", ns[4], 1, denormNs);
        row("  step alone: 10,000 keys from doc values (no stored fields, filter_path)", ns[5], 1, denormNs);
        row("  step alone: children by a terms query of 10,000 keys (typed client)", ns[6], 1, denormNs);
        row(
                "  step alone: the first " + PROBE + " posts in the child order, with keys (children-first's read)",
                ns[13],
                1,
                denormNs);
        row("  step alone: the first " + PROBE / 2 + " posts in the child order, with keys", ns[14], 1, denormNs);
        row(
                "  step alone: the first " + BOUNDED_PROBE + " posts (the read when asked again), unbounded",
                ns[18],
                1,
                denormNs);
        row(
                "  step alone: the first " + BOUNDED_PROBE + " posts, bounded by the date where the last read ended",
                ns[19],
                1,
                denormNs);
        row(
                "  step alone: which of their " + authors.size() + " authors match (children-first's check)",
                ns[15],
                1,
                denormNs);
        row("  floor: a request that searches nothing (GET _cluster/health)", ns[9], 1, denormNs);
        row("  floor: a search that finds nothing to do (size 0, no hit count)", ns[10], 1, denormNs);
        out.printf(
                "  join / denormalized: %.2fx (default plan), %.2fx (KEYS_FIRST, _id), %.2fx (KEYS_FIRST, keyword key);"
                        + " goal <= 2.5x (default plan).%n",
                ratio(ns[1], ns[0]), ratio(ns[2], ns[0]), ratio(ns[3], ns[0]));
        out.printf(
                "  selective question: users aged 18 (%,d of %,d users, %s)%n",
                selectiveResult.parentsMatched(), USER_COUNT, selectiveResult.plan());
        row("denormalized query: posts filtered on user.age (baseline)", ns[7], 1, ns[7]);
        row(
                "join, default plan, selective question",
                " (AUTO chose " + selectiveResult.plan() + ")",
                ns[8],
                selectiveAgain.roundTrips(),
                ns[7]);
        row(
                "join, default plan, selective question, first call of a new Join (no count cached)",
                ns[12],
                selectiveResult.roundTrips(),
                ns[7]);
        row(
                "  step alone: the " + keys18.size() + " matching parents with their sources (keys-first's first read)",
                ns[16],
                1,
                ns[7]);
        row("  step alone: children by a terms query of their " + keys18.size() + " keys", ns[17], 1, ns[7]);
        out.printf(
                "  Medians of %d interleaved rounds after %d warm-ups. Keys-first cannot beat its two steps (reading"
                        + " every matching parent's key, then a terms query of all of them); children-first reads posts newest first"
                        + " and checks their authors, so its cost follows the posts it reads, not the 10,000 parents. Asked"
                        + " again within the minute (the timed rows), the default plan sends its second step beside the first,"
                        + " for the keys the last call found, and is answered in one round trip when they still hold.%n",
                ROUNDS, WARMUPS);
        out.printf("  default: %s%n  requests: %s%n", autoResult.describe(), autoResult.requests());
        out.printf("  default, asked again: %s%n  requests: %s%n", again.describe(), again.requests());
        out.printf("  keys-first: %s%n", eagerResult.describe());
        out.printf("  selective: %s%n", selectiveResult.describe());
        out.printf(
                "  selective, asked again: %s%n  requests: %s%n", selectiveAgain.describe(), selectiveAgain.requests());
        if (!Boolean.getBoolean("esrel.bench.keep")) {
            es.indices().delete(d -> d.index(USERS, POSTS));
        }
    }

    private List<String> denormalized(String field, String value, Query mentions, SortOptions newest) throws Exception {
        return es
                .search(
                        s -> s.index(POSTS)
                                .size(20)
                                .sort(newest)
                                .query(q -> q.bool(b -> b.must(mentions)
                                        .filter(f -> f.term(t -> t.field(field).value(value))))),
                        Post.class)
                .hits()
                .hits()
                .stream()
                .map(Hit::id)
                .toList();
    }

    /** Keys-first's second step alone: the 20 newest posts mentioning it by the authors with these keys. */
    private SearchResponse<Post> childrenOf(List<FieldValue> keys, Query mentions, SortOptions newest)
            throws Exception {
        return es.search(
                s -> s.index(POSTS)
                        .size(20)
                        .sort(newest)
                        .query(q -> q.bool(b -> b.must(mentions)
                                .filter(f -> f.terms(t -> t.field("user_id").terms(v -> v.value(keys)))))),
                Post.class);
    }

    /** What children-first reads first: the posts in the child order, with their authors' keys from doc values. */
    private SearchResponse<JsonData> probe(Query mentions, SortOptions newest, int size) throws Exception {
        return es.search(
                s -> s.index(POSTS)
                        .size(size)
                        .sort(newest)
                        .query(mentions)
                        .trackTotalHits(t -> t.enabled(false))
                        .docvalueFields(f -> f.field("user_id")),
                JsonData.class);
    }

    /** The parents of the selective question as keys-first reads them with their keys: all of them, sources on. */
    private SearchResponse<User> parentsAged18(Query aged18) throws Exception {
        return es.search(
                s -> s.index(USERS)
                        .size(Join.PREVIEW_KEYS)
                        .query(aged18)
                        .sort(so -> so.doc(d -> d))
                        .trackTotalHits(t -> t.count(10_001)),
                User.class);
    }

    private List<FieldValue> keys(Query fromNl) throws Exception {
        List<FieldValue> keys = new ArrayList<>();
        es.search(
                        s -> s.index(USERS)
                                .size(10_000)
                                .query(fromNl)
                                .sort(so -> so.doc(d -> d))
                                .source(src -> src.fetch(false)),
                        Void.class)
                .hits()
                .hits()
                .forEach(h -> keys.add(FieldValue.of(h.id())));
        return keys;
    }

    /** The request esrel sends for keys from a doc-values field (ParentFetch.LAZY), parsed as a tree. */
    private int docValueKeys(Query fromNl) throws Exception {
        SearchRequest request = SearchRequest.of(s -> s.size(10_000)
                .query(fromNl)
                .sort(so -> so.doc(d -> d))
                .source(src -> src.fetch(false))
                .storedFields("_none_")
                .docvalueFields(f -> f.field("id"))
                .trackTotalHits(t -> t.count(10_001)));
        JsonData answer = es._transport().performRequest(request, RAW_SEARCH, es._transportOptions());
        return answer.to(com.fasterxml.jackson.databind.JsonNode.class, es._jsonpMapper())
                .path("hits")
                .path("hits")
                .size();
    }

    private void row(String what, Timer.Sample t, int trips, Timer.Sample baseline) {
        row(what, "", t, trips, baseline);
    }

    /** A row; {@code detail} is printed but not part of the figure's name (it changes between runs). */
    private void row(String what, String detail, Timer.Sample t, int trips, Timer.Sample baseline) {
        out.printf("  %-74s %8.1f %6d %7.2fx%n", what + detail, t.medianNanos() / 1e6, trips, ratio(t, baseline));
        record.add(
                "join",
                what,
                t.medianNanos() / 1e6,
                "ms",
                t == baseline ? Double.NaN : ratio(t, baseline),
                BenchRecord.Better.LOWER,
                Math.max(t.spread(), baseline.spread()));
        if (!detail.isEmpty()) { // the plans esrel chooses: their round trips are a figure of their own
            record.add("join", what + ": round trips", trips, "requests", Double.NaN, BenchRecord.Better.LOWER, 0);
        }
    }

    private static double ratio(Timer.Sample t, Timer.Sample baseline) {
        return (double) t.medianNanos() / baseline.medianNanos();
    }

    /** Median wall time (and spread) of each action, the actions run in turn within each round. */
    private static Timer.Sample[] interleavedMedians(int warmups, int rounds, Timer.Action... actions)
            throws Exception {
        long[][] times = new long[actions.length][rounds];
        for (int r = -warmups; r < rounds; r++) {
            for (int a = 0; a < actions.length; a++) {
                long start = System.nanoTime();
                actions[a].run();
                if (r >= 0) {
                    times[a][r] = System.nanoTime() - start;
                }
            }
        }
        Timer.Sample[] medians = new Timer.Sample[actions.length];
        for (int a = 0; a < actions.length; a++) {
            medians[a] = Timer.Sample.of(times[a]);
        }
        return medians;
    }

    private void load() throws Exception {
        for (String index : List.of(USERS, POSTS)) {
            if (es.indices().exists(e -> e.index(index)).value()) {
                es.indices().delete(d -> d.index(index));
            }
        }
        es.indices()
                .create(c -> c.index(USERS)
                        .settings(
                                s -> s.numberOfShards("1").numberOfReplicas("0").refreshInterval(t -> t.time("-1")))
                        .mappings(m -> m.properties("id", p -> p.keyword(k -> k))
                                .properties("name", p -> p.text(t -> t))
                                .properties("country", p -> p.keyword(k -> k))
                                .properties("age", p -> p.integer(i -> i))));
        es.indices()
                .create(c -> c.index(POSTS)
                        .settings(
                                s -> s.numberOfShards("1").numberOfReplicas("0").refreshInterval(t -> t.time("-1")))
                        .mappings(m -> m.properties("title", p -> p.text(t -> t))
                                .properties("user_id", p -> p.keyword(k -> k))
                                .properties("date", p -> p.long_(l -> l))
                                .properties(
                                        "user",
                                        p -> p.object(o -> o.properties("country", x -> x.keyword(k -> k))
                                                .properties("age", x -> x.integer(i -> i))))));
        String[] countries = {"de", "fr", "be", "es"};
        List<User> users = new ArrayList<>(USER_COUNT);
        for (int i = 0; i < USER_COUNT; i++) {
            users.add(new User(
                    "u" + i, "user " + i, i % 2 == 0 ? "nl" : countries[(i / 2) % countries.length], 18 + i % 60));
        }
        bulk(
                USERS,
                users.size(),
                i -> BulkOperation.of(
                        o -> o.index(x -> x.index(USERS).id("u" + i).document(users.get(i)))));
        String[] words = {"elasticsearch", "lucene", "joins", "relationships", "modeling", "scaling", "search", "data"};
        SplittableRandom r = new SplittableRandom(7);
        List<Post> posts = new ArrayList<>(POST_COUNT);
        for (int j = 0; j < POST_COUNT; j++) {
            int u = r.nextInt(USER_COUNT);
            String title = words[r.nextInt(words.length)] + " " + words[r.nextInt(words.length)] + " "
                    + words[r.nextInt(words.length)];
            posts.add(new Post(
                    title,
                    "u" + u,
                    1_000_000L + j,
                    new Author(users.get(u).country(), users.get(u).age())));
        }
        bulk(
                POSTS,
                posts.size(),
                j -> BulkOperation.of(
                        o -> o.index(x -> x.index(POSTS).id("p" + j).document(posts.get(j)))));
        for (String index : List.of(USERS, POSTS)) {
            es.indices().putSettings(p -> p.index(index).settings(s -> s.refreshInterval(t -> t.time("1s"))));
            es.indices().refresh(x -> x.index(index));
            es.indices().forcemerge(f -> f.index(index).maxNumSegments(1L));
        }
    }

    private void bulk(String index, int count, java.util.function.IntFunction<BulkOperation> op) throws Exception {
        for (int from = 0; from < count; from += 5_000) {
            List<BulkOperation> ops = new ArrayList<>();
            for (int i = from; i < Math.min(from + 5_000, count); i++) {
                ops.add(op.apply(i));
            }
            if (es.bulk(b -> b.operations(ops)).errors()) {
                throw new IllegalStateException("bulk into " + index + " had errors");
            }
        }
    }
}
