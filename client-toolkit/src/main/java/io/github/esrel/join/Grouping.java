package io.github.esrel.join;

import co.elastic.clients.elasticsearch.ElasticsearchClient;
import co.elastic.clients.elasticsearch._types.aggregations.Aggregate;
import co.elastic.clients.elasticsearch._types.aggregations.DoubleTermsBucket;
import co.elastic.clients.elasticsearch._types.aggregations.LongTermsBucket;
import co.elastic.clients.elasticsearch._types.aggregations.MultiBucketBase;
import co.elastic.clients.elasticsearch._types.aggregations.StringTermsBucket;
import co.elastic.clients.elasticsearch.core.SearchRequest;
import co.elastic.clients.elasticsearch.core.search.Hit;
import co.elastic.clients.elasticsearch.core.search.HitsMetadata;
import co.elastic.clients.elasticsearch.core.search.InnerHitsResult;
import co.elastic.clients.elasticsearch.core.search.ResponseBody;
import co.elastic.clients.json.JsonData;
import co.elastic.clients.util.ObjectBuilder;
import io.github.esrel.internal.Clients;
import java.math.BigDecimal;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * Field collapsing (seed 000 §1.3): the top documents of each group of a field, groups ordered by
 * their best score, as typed {@link Group}s. Two ways to ask Elasticsearch, which give the same
 * groups on the same data:
 * <ul>
 *   <li>{@link #collapse} — {@code collapse} on the field with {@code inner_hits}: one search, the
 *       server picks and pages the groups. The usual choice.</li>
 *   <li>{@link #termsAggregation} — the seed's form: a {@code terms} aggregation on the field,
 *       ordered by {@code max(_score)}, with {@code top_hits} per bucket. {@code max(_score)} needs a
 *       painless script; on clusters without the {@code lang-painless} module (such as
 *       Elasticsearch's integ-test distribution) esrel asks for every bucket with its
 *       {@code top_hits} and orders them by their best score itself
 *       ({@link Groups.Form#TERMS_CLIENT_ORDERED}), exact as long as the field has at most
 *       {@link Builder#maxBuckets(int)} distinct values among the matches.</li>
 * </ul>
 *
 * <pre>{@code
 * Grouping grouping = Grouping.of(b -> b.client(es));
 * Groups<Post> byAuthor = grouping.collapse(GroupQuery.of(Post.class, g -> g
 *     .index("posts").query(q -> q.match(m -> m.field("title").query("relationships")))
 *     .field("user.name.raw").groups(10).perGroup(5)));
 * for (Group<Post> author : byAuthor.groups()) {
 *     print(author.key(), author.total(), author.values());
 * }
 * }</pre>
 *
 * <p>Documents without a value in the field belong to no group in either form. Groups whose best
 * scores tie may come in a different order from the two forms (the terms form breaks ties by key).
 * Failures are {@link JoinException}s. Thread-safe; holds no connection of its own.
 */
public final class Grouping {

    /** Default {@link Builder#maxBuckets(int)}. */
    public static final int DEFAULT_MAX_BUCKETS = 10_000;

    /** How {@link #termsAggregation} orders buckets by best score. */
    public enum TermsOrdering {
        /** Try the seed's scripted form once; on a cluster without painless use {@link #CLIENT} from then on. */
        AUTO,
        /** Always the seed's scripted {@code max(_score)} ordering (fails without the {@code lang-painless} module). */
        SCRIPT,
        /** Always every bucket, ordered by esrel (no scripts). */
        CLIENT
    }

    private final ElasticsearchClient es;
    private final Searcher searcher;
    private final Sources sources;
    private final int maxBuckets;
    private final TermsOrdering ordering;
    /** Whether the cluster runs painless: unknown ({@code null}) until the scripted form was tried. */
    private final AtomicReference<Boolean> painless = new AtomicReference<>();

    private Grouping(Builder b) {
        this.es = Clients.adopt(Objects.requireNonNull(b.client, "client cannot be null"));
        this.searcher = new Searcher(es);
        this.sources = searcher.sources();
        this.maxBuckets = b.maxBuckets;
        this.ordering = b.ordering;
    }

    /**
     * Builds a grouping in one expression. The first entry point built on a client's transport sends
     * it one request ({@code GET /}) to check that the server accepts this client line.
     *
     * @param fn sets the grouping up on a fresh builder and returns it; it must set the client
     * @return the grouping
     * @throws NullPointerException if {@code fn} sets no client
     * @throws IllegalStateException if the server refuses this client line's requests (a server of
     *     another major version)
     */
    public static Grouping of(Function<Builder, Builder> fn) {
        return fn.apply(new Builder()).build();
    }

    /**
     * Starts a grouping; {@link Builder#client} must be set before {@link Builder#build()}.
     *
     * @return a new builder with the defaults
     */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * Groups with {@code collapse} + {@code inner_hits}: one round trip.
     *
     * @param q what to group and how many groups and documents to return
     * @param <T> the document type
     * @return the requested page of groups, best score first, {@linkplain Groups#exact() exact};
     *     empty when nothing matches
     * @throws NullPointerException if {@code q} is {@code null}
     * @throws JoinException if the index is missing, the field cannot be collapsed on (not a
     *     single-valued keyword or numeric field with doc values), a source cannot be mapped, or the
     *     cluster fails
     */
    public <T> Groups<T> collapse(GroupQuery<T> q) {
        Objects.requireNonNull(q, "query cannot be null");
        long start = System.nanoTime();
        Trips trips = new Trips();
        SearchRequest request = Requests.collapse(
                q.index(), q.query(), q.field(), q.from(), q.groups(), q.perGroup(), q.perGroupSort(), q.source());
        ResponseBody<Void> r = searcher.one("collapse on " + q.field(), q.index(), request, Void.class, trips);
        List<Group<T>> groups = new ArrayList<>();
        for (Hit<Void> top : r.hits().hits()) {
            InnerHitsResult inner = top.innerHits().get(Requests.GROUP_HITS);
            List<Doc<T>> docs = docs(inner == null ? null : inner.hits(), q.type());
            long total = inner == null || inner.hits().total() == null
                    ? docs.size()
                    : inner.hits().total().value();
            String key = Keys.of(top, q.field());
            groups.add(
                    new Group<>(key == null ? "" : key, top.score() == null ? Double.NaN : top.score(), total, docs));
        }
        return new Groups<>(groups, Groups.Form.COLLAPSE, total(r), true, null, trips.list(), since(start));
    }

    /**
     * Groups with the seed's {@code terms} + {@code max(_score)} + {@code top_hits} form, or its
     * script-free equivalent (see the class comment and {@link Builder#termsOrdering}). One round
     * trip; two the first time {@link TermsOrdering#AUTO} finds a cluster without painless.
     *
     * @param q what to group and how many groups and documents to return
     * @param <T> the document type
     * @return the requested page of groups, best score first; not {@linkplain Groups#exact() exact}
     *     when the script-free form met more than {@link Builder#maxBuckets(int)} distinct values, as
     *     {@link Groups#note()} then says
     * @throws NullPointerException if {@code q} is {@code null}
     * @throws JoinException as {@link #collapse}, and when {@link TermsOrdering#SCRIPT} is forced on a
     *     cluster without painless
     */
    public <T> Groups<T> termsAggregation(GroupQuery<T> q) {
        Objects.requireNonNull(q, "query cannot be null");
        long start = System.nanoTime();
        Trips trips = new Trips();
        String note = null;
        if (ordering == TermsOrdering.SCRIPT || (ordering == TermsOrdering.AUTO && painless.get() != Boolean.FALSE)) {
            try {
                Groups<T> scripted = scripted(q, trips, start);
                painless.set(true);
                return scripted;
            } catch (JoinException e) {
                if (ordering == TermsOrdering.SCRIPT || !Errors.isPainlessMissing(String.valueOf(e.getMessage()))) {
                    throw e;
                }
                painless.set(false);
                note = "this cluster cannot run painless, so buckets were ordered by their best score by esrel";
            }
        } else if (ordering == TermsOrdering.AUTO) {
            note = "this cluster cannot run painless, so buckets were ordered by their best score by esrel";
        }
        return clientOrdered(q, trips, start, note);
    }

    private <T> Groups<T> scripted(GroupQuery<T> q, Trips trips, long start) {
        SearchRequest request = Requests.termsByScriptedMaxScore(q, q.from() + q.groups());
        ResponseBody<Void> r = searcher.one(
                "terms on " + q.field() + " ordered by max(_score) (painless)", q.index(), request, Void.class, trips);
        List<Group<T>> all = buckets(r, q, true);
        List<Group<T>> page = all.subList(Math.min(q.from(), all.size()), all.size());
        return new Groups<>(
                page, Groups.Form.TERMS_SCRIPTED_MAX_SCORE, total(r), true, null, trips.list(), since(start));
    }

    private <T> Groups<T> clientOrdered(GroupQuery<T> q, Trips trips, long start, @Nullable String note) {
        SearchRequest request = Requests.termsAllBuckets(q, maxBuckets);
        ResponseBody<Void> r = searcher.one(
                "terms on " + q.field() + " (every bucket) with top_hits", q.index(), request, Void.class, trips);
        List<Group<T>> all = new ArrayList<>(buckets(r, q, false));
        all.sort(BEST_FIRST);
        Aggregate agg = r.aggregations().get(Requests.GROUPS);
        long other = otherDocs(agg);
        boolean exact = other == 0;
        if (!exact) {
            note = "the query matches more than maxBuckets=" + maxBuckets + " distinct values of " + q.field() + " ("
                    + other
                    + " documents in buckets that were not returned), so groups with a better score may be missing:"
                    + " use collapse(...) or raise maxBuckets (up to search.max_buckets)";
        }
        List<Group<T>> page = all.subList(Math.min(q.from(), all.size()), Math.min(q.from() + q.groups(), all.size()));
        return new Groups<>(page, Groups.Form.TERMS_CLIENT_ORDERED, total(r), exact, note, trips.list(), since(start));
    }

    /** Best score first; ties by key, as Elasticsearch breaks ties of a sub-aggregation order. */
    static final Comparator<Group<?>> BEST_FIRST = Comparator.<Group<?>>comparingDouble(g -> -g.bestScore())
            .thenComparing(Group::key, SortValues::byCodePoint);

    private <T> List<Group<T>> buckets(ResponseBody<Void> r, GroupQuery<T> q, boolean scripted) {
        Aggregate agg = r.aggregations().get(Requests.GROUPS);
        List<Group<T>> out = new ArrayList<>();
        if (agg == null) {
            return out;
        }
        List<? extends MultiBucketBase> buckets;
        if (agg.isSterms()) {
            buckets = agg.sterms().buckets().array();
        } else if (agg.isLterms()) {
            buckets = agg.lterms().buckets().array();
        } else if (agg.isDterms()) {
            buckets = agg.dterms().buckets().array();
        } else {
            return out; // unmapped field: no groups
        }
        for (MultiBucketBase b : buckets) {
            HitsMetadata<JsonData> hits = Objects.requireNonNull(
                            b.aggregations().get(Requests.GROUP_HITS), "a bucket has the hits asked for")
                    .topHits()
                    .hits();
            List<Doc<T>> docs = docs(hits, q.type());
            double best;
            if (scripted) {
                Double v = Objects.requireNonNull(
                                b.aggregations().get(Requests.TOP_SCORE), "a bucket has the score asked for")
                        .max()
                        .value();
                best = v == null ? Double.NaN : v;
            } else {
                best = hits.maxScore() != null
                        ? hits.maxScore()
                        : docs.isEmpty() || docs.get(0).score() == null
                                ? Double.NaN
                                : docs.get(0).score();
            }
            out.add(new Group<>(key(b), best, b.docCount(), docs));
        }
        return out;
    }

    private static String key(MultiBucketBase b) {
        if (b instanceof StringTermsBucket s) {
            return s.key().isString()
                    ? s.key().stringValue()
                    : String.valueOf(s.key()._get());
        }
        if (b instanceof LongTermsBucket l) {
            return Long.toString(l.key());
        }
        if (b instanceof DoubleTermsBucket d) {
            return Keys.number(BigDecimal.valueOf(d.key()));
        }
        throw new IllegalStateException("unexpected bucket " + b.getClass().getName());
    }

    private static long otherDocs(@Nullable Aggregate agg) {
        Long other = null;
        if (agg == null) {
            return 0;
        } else if (agg.isSterms()) {
            other = agg.sterms().sumOtherDocCount();
        } else if (agg.isLterms()) {
            other = agg.lterms().sumOtherDocCount();
        } else if (agg.isDterms()) {
            other = agg.dterms().sumOtherDocCount();
        }
        return other == null ? 0 : other;
    }

    private <T> List<Doc<T>> docs(@Nullable HitsMetadata<JsonData> hits, Class<T> type) {
        List<Doc<T>> out = new ArrayList<>();
        if (hits != null) {
            for (Hit<JsonData> h : hits.hits()) {
                out.add(sources.doc(h, type));
            }
        }
        return out;
    }

    private static long total(ResponseBody<?> r) {
        return r.hits().total() == null ? -1 : r.hits().total().value();
    }

    private static Duration since(long start) {
        return Duration.ofNanos(System.nanoTime() - start);
    }

    @Override
    public String toString() {
        return "Grouping{maxBuckets=" + maxBuckets + ", termsOrdering=" + ordering + ", painless="
                + (painless.get() == null ? "unknown" : painless.get()) + '}';
    }

    /** Builds a {@link Grouping}; only {@link #client} is required. */
    public static final class Builder implements ObjectBuilder<Grouping> {

        private @Nullable ElasticsearchClient client;
        private int maxBuckets = DEFAULT_MAX_BUCKETS;
        private TermsOrdering ordering = TermsOrdering.AUTO;

        Builder() {}

        /**
         * The client to search with (required). Its transport (nodes, authentication, TLS) is used;
         * the grouping opens no connection of its own.
         *
         * @param client the Elasticsearch client
         * @return this builder
         * @throws NullPointerException if {@code client} is {@code null}
         */
        public Builder client(ElasticsearchClient client) {
            this.client = Objects.requireNonNull(client, "client cannot be null");
            return this;
        }

        /**
         * The most buckets the script-free terms form asks for (default {@value Grouping#DEFAULT_MAX_BUCKETS});
         * it needs every distinct value among the matches to order them exactly. At most 65,536 (the
         * default {@code search.max_buckets}).
         *
         * @param maxBuckets the most {@code terms} buckets to ask for
         * @return this builder
         * @throws IllegalArgumentException if not in 1..65,536
         */
        public Builder maxBuckets(int maxBuckets) {
            if (maxBuckets < 1 || maxBuckets > 65_536) {
                throw new IllegalArgumentException("maxBuckets must be in 1..65536, got " + maxBuckets);
            }
            this.maxBuckets = maxBuckets;
            return this;
        }

        /**
         * How the terms form orders buckets (default {@link TermsOrdering#AUTO}).
         *
         * @param ordering the bucket ordering of {@link Grouping#termsAggregation}
         * @return this builder
         * @throws NullPointerException if {@code ordering} is {@code null}
         */
        public Builder termsOrdering(TermsOrdering ordering) {
            this.ordering = Objects.requireNonNull(ordering, "ordering cannot be null");
            return this;
        }

        @Override
        public Grouping build() {
            Objects.requireNonNull(client, "client cannot be null");
            return new Grouping(this);
        }
    }
}
