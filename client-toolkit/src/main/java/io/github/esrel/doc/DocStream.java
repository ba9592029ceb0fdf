package io.github.esrel.doc;

import co.elastic.clients.elasticsearch.ElasticsearchClient;
import co.elastic.clients.elasticsearch._types.ElasticsearchException;
import co.elastic.clients.elasticsearch._types.FieldValue;
import co.elastic.clients.elasticsearch._types.SortOrder;
import co.elastic.clients.elasticsearch._types.query_dsl.Query;
import co.elastic.clients.elasticsearch.core.SearchRequest;
import co.elastic.clients.elasticsearch.core.SearchResponse;
import co.elastic.clients.elasticsearch.core.search.Hit;
import co.elastic.clients.elasticsearch.core.search.HitsMetadata;
import co.elastic.clients.elasticsearch.core.search.ResponseBody;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.github.esrel.internal.Checks;
import io.github.esrel.internal.ClientApi;
import io.github.esrel.internal.Clients;
import io.github.esrel.internal.Reasons;
import io.github.esrel.internal.ShardFailures;
import io.github.esrel.retry.Attempts;
import io.github.esrel.retry.Failures;
import io.github.esrel.retry.RetryPolicy;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Streams every document matching a query, a page at a time, in constant memory: with a point in
 * time and {@code search_after} (sorted by {@code _shard_doc}), or with a scroll where a point in time
 * is not available. Each hit carries its {@code _seq_no}, {@code _primary_term} and routing, so a
 * conditional write can follow. The view is a snapshot taken when the stream opens: documents written
 * later are not seen, documents changed later are seen as they were.
 *
 * <pre>{@code
 * try (DocStream children = DocStream.of(s -> s.client(es).index("posts")
 *         .query(q -> q.term(t -> t.field("user.id").value("42"))).pageSize(1000))) {
 *     for (List<Hit<ObjectNode>> page = children.next(); !page.isEmpty(); page = children.next()) {
 *         ...
 *     }
 * }
 * }</pre>
 *
 * <p>esrel's own point-in-time reads (propagation, views, the file tree's renames, the duplicate-id scanner)
 * all go through it. Joins page differently: their cursor outlives the call that made it and follows the
 * caller's sort.
 *
 * <p>With {@link Builder#prefetch(boolean)} the next page is fetched on a background thread while the
 * caller works on the current one (at most one page ahead). Pages whose search is rejected (429) are
 * retried under the retry policy. A search some shards did not answer (their node frozen or gone, taking the
 * point in time's reader with it) fails the stream with a {@link DocStreamException} (status 503; 400 for a
 * query the shards of one index of a pattern cannot run) instead of returning a page without their documents,
 * which the stream would then step past for good; open a new stream to go on. Not thread-safe: one consumer.
 *
 * <p>Sliced streams read one large index in parallel: open one point in time, then one stream per slice
 * on it, each on its own thread ({@link Builder#pointInTime(String)}, {@link Builder#slice(int, int)});
 * together they return every match exactly once, and the caller closes the point in time.
 */
public final class DocStream implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(DocStream.class);

    /** How to page through the matches. */
    public enum Mode {
        /** A point in time, falling back to a scroll if the cluster cannot open one. */
        AUTO,
        /** Point in time + {@code search_after}; fails where a point in time cannot be opened. */
        POINT_IN_TIME,
        /** A scroll sorted by {@code _doc}. */
        SCROLL
    }

    private final ElasticsearchClient client;
    private final String index;
    private final Query query;
    private final int pageSize;
    private final Duration keepAlive;
    private final @Nullable String routing;
    private final List<String> sourceIncludes;
    private final boolean fetchSource;
    private final Mode requested;
    private final RetryPolicy retry;
    private final @Nullable ExecutorService prefetcher;
    private final int sliceId;
    private final int sliceMax;
    /** Whether the stream opened its point in time (and closes it), or was given one. */
    private final boolean ownsPointInTime;

    private @Nullable Mode mode;
    private @Nullable String pitId;
    private @Nullable String scrollId;
    private @Nullable List<FieldValue> after;
    private long total = -1;
    private boolean exhausted;
    private boolean closed;
    private @Nullable CompletableFuture<List<Hit<ObjectNode>>> ahead;

    private DocStream(Builder b) {
        this.client = Clients.internal(Objects.requireNonNull(b.client, "client cannot be null"));
        this.index = Objects.requireNonNull(b.index, "index cannot be null");
        this.query = b.query != null ? b.query : Query.of(q -> q.matchAll(m -> m));
        this.pageSize = b.pageSize;
        this.keepAlive = b.keepAlive;
        this.routing = b.routing;
        this.sourceIncludes = List.copyOf(b.sourceIncludes);
        this.fetchSource = b.fetchSource;
        this.requested = b.mode;
        this.retry = b.retry;
        this.sliceId = b.sliceId;
        this.sliceMax = b.sliceMax;
        this.ownsPointInTime = b.pointInTime == null;
        if (b.pointInTime != null) {
            this.pitId = b.pointInTime;
            this.mode = Mode.POINT_IN_TIME;
        }
        this.prefetcher = b.prefetch
                ? Executors.newSingleThreadExecutor(r -> {
                    Thread t = new Thread(r, "esrel-docstream-" + index);
                    t.setDaemon(true);
                    return t;
                })
                : null;
    }

    /**
     * Opens a stream with a lambda, in the style of the elasticsearch-java client. No search is sent
     * before the first {@link #next()}; close the stream to release its point in time or scroll.
     *
     * @param fn sets the builder's options, at least {@link Builder#client} and {@link Builder#index}
     * @return the new stream
     * @throws NullPointerException if the client or the index is missing
     * @throws IllegalStateException if the server refuses the requests of this client line
     * @throws IllegalArgumentException as {@link Builder#build()}
     */
    public static DocStream of(Function<Builder, Builder> fn) {
        return fn.apply(new Builder()).build();
    }

    /**
     * Starts a builder; {@link Builder#client} and {@link Builder#index} are required.
     *
     * @return a new builder with the defaults
     */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * The next page of hits, in stream order; empty when every match was returned.
     *
     * @return at most {@code pageSize} hits, each with its {@code _seq_no}, {@code _primary_term},
     *     routing and source (no source with {@code fetchSource(false)}); an empty list once the stream
     *     is exhausted, on this and every later call
     * @throws DocStreamException if a search fails (after retrying rejections) or some shards did not answer it
     * @throws IllegalStateException if the stream is closed
     */
    public List<Hit<ObjectNode>> next() {
        if (closed) {
            throw new IllegalStateException("this stream over [" + index + "] is closed");
        }
        if (exhausted) {
            return List.of();
        }
        List<Hit<ObjectNode>> page;
        if (ahead != null) {
            try {
                page = ahead.join();
            } catch (CompletionException e) {
                throw e.getCause() instanceof RuntimeException re ? re : e;
            } finally {
                ahead = null;
            }
        } else {
            page = fetch();
        }
        if (page.size() < pageSize) {
            exhausted = true;
        } else if (prefetcher != null) {
            ahead = CompletableFuture.supplyAsync(this::fetch, prefetcher);
        }
        return page;
    }

    /**
     * Matches when the stream opened ({@code track_total_hits}); -1 before the first page.
     *
     * @return the exact number of matching documents, or -1 when not known yet
     */
    public long total() {
        return total;
    }

    /**
     * The mode in use: {@code POINT_IN_TIME} or {@code SCROLL}; {@code null} before the first page.
     *
     * @return the mode chosen when the stream opened, never {@code AUTO}; or {@code null}
     */
    public @Nullable Mode mode() {
        return mode;
    }

    /** Closes the point in time or clears the scroll; failures to do so are logged, not thrown. */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        if (ahead != null) {
            try {
                ahead.join();
            } catch (RuntimeException e) {
                log.debug("prefetch of [{}] failed while closing", index, e);
            }
        }
        if (prefetcher != null) {
            prefetcher.shutdownNow();
        }
        try {
            if (pitId != null && ownsPointInTime) {
                String id = pitId;
                client.closePointInTime(c -> c.id(id));
            }
            if (scrollId != null) {
                String id = scrollId;
                client.clearScroll(c -> c.scrollId(id));
            }
        } catch (IOException | RuntimeException e) {
            log.warn(
                    "cannot release the {} over [{}]; it expires after its keep-alive of {}",
                    pitId != null ? "point in time" : "scroll",
                    index,
                    keepAlive,
                    e);
        }
    }

    private List<Hit<ObjectNode>> fetch() {
        Attempts attempts = retry.attempts();
        while (true) {
            try {
                return fetchOnce();
            } catch (ElasticsearchException e) {
                if (!(Failures.isRejected(e) && attempts.retryAfter(e))) {
                    throw new DocStreamException("searching [" + index + "] failed: " + Reasons.of(e), e.status(), e);
                }
            } catch (IOException e) {
                throw new DocStreamException("searching [" + index + "] failed: " + e, 0, e);
            }
        }
    }

    private List<Hit<ObjectNode>> fetchOnce() throws IOException {
        if (mode == null) {
            open();
        }
        String time = keepAlive.toMillis() + "ms";
        ResponseBody<ObjectNode> r;
        if (mode == Mode.SCROLL) {
            if (scrollId == null) {
                r = client.search(
                        s -> {
                            common(
                                    s.index(index)
                                            .scroll(t -> t.time(time))
                                            .sort(o -> o.doc(d -> d.order(SortOrder.Asc))),
                                    true);
                            if (routing != null) {
                                ClientApi.routing(s, routing);
                            }
                            return s;
                        },
                        ObjectNode.class);
            } else {
                String id = scrollId;
                r = client.scroll(s -> s.scrollId(id).scroll(t -> t.time(time)), ObjectNode.class);
            }
            scrollId = r.scrollId();
        } else {
            List<FieldValue> from = after;
            SearchResponse<ObjectNode> sr = client.search(
                    s -> {
                        common(s.pit(p -> p.id(pitId).keepAlive(t -> t.time(time))), from == null)
                                .sort(o -> o.field(f -> f.field("_shard_doc").order(SortOrder.Asc)));
                        if (from != null) {
                            s.searchAfter(from);
                        }
                        return s;
                    },
                    ObjectNode.class);
            r = sr;
            if (sr.pitId() != null) {
                pitId = sr.pitId();
            }
        }
        String missing = ShardFailures.of(r.shards());
        if (missing != null) {
            // Possible for a scroll's later pages (allow_partial_search_results only binds its first search): the
            // page lacks the failed shards' documents, and the scroll has moved past them.
            throw new DocStreamException(
                    "searching [" + index + "] failed: " + missing + "; the stream stopped rather than skip their"
                            + " documents",
                    ShardFailures.status(r.shards()),
                    null);
        }
        HitsMetadata<ObjectNode> hits = r.hits();
        if (total < 0) {
            total = hits.total() != null ? hits.total().value() : -1;
        }
        List<Hit<ObjectNode>> page = new ArrayList<>(hits.hits());
        if (!page.isEmpty() && mode == Mode.POINT_IN_TIME) {
            after = page.get(page.size() - 1).sort();
        }
        return page;
    }

    private SearchRequest.Builder common(SearchRequest.Builder s, boolean first) {
        // A page that lacks a failed shard's documents would be stepped past for good: fail the search instead.
        s.query(query)
                .size(pageSize)
                .seqNoPrimaryTerm(true)
                .trackTotalHits(t -> t.enabled(first))
                .allowPartialSearchResults(false);
        if (sliceMax > 1) {
            s.slice(sl -> sl.id(String.valueOf(sliceId)).max(sliceMax));
        }
        if (!fetchSource) {
            s.source(src -> src.fetch(false));
        } else if (!sourceIncludes.isEmpty()) {
            s.source(src -> src.filter(f -> f.includes(sourceIncludes)));
        }
        return s;
    }

    private void open() throws IOException {
        if (requested == Mode.SCROLL) {
            mode = Mode.SCROLL;
            return;
        }
        try {
            pitId = client.openPointInTime(o -> {
                        o.index(index).keepAlive(t -> t.time(keepAlive.toMillis() + "ms"));
                        if (routing != null) {
                            ClientApi.routing(o, routing);
                        }
                        return o;
                    })
                    .id();
            mode = Mode.POINT_IN_TIME;
        } catch (ElasticsearchException e) {
            boolean unsupported = (e.status() == 400 || e.status() == 404 || e.status() == 405 || e.status() == 501)
                    && !Reasons.of(e).contains("index_not_found_exception");
            if (requested == Mode.AUTO && unsupported) {
                log.debug("cannot open a point in time on [{}] ({}); streaming with a scroll", index, Reasons.of(e));
                mode = Mode.SCROLL;
                return;
            }
            throw e;
        }
    }

    @Override
    public String toString() {
        return "DocStream{index=" + index + ", mode=" + (mode == null ? requested : mode) + ", pageSize=" + pageSize
                + (routing == null ? "" : ", routing=" + routing)
                + (sliceMax > 1 ? ", slice=" + sliceId + "/" + sliceMax : "")
                + (ownsPointInTime ? "" : ", shared point in time") + ", total=" + total + '}';
    }

    /** Builder for {@link DocStream}. Not thread-safe. */
    public static final class Builder {
        private @Nullable ElasticsearchClient client;
        private @Nullable String index;
        private @Nullable Query query;
        private int pageSize = 1000;
        private Duration keepAlive = Duration.ofMinutes(5);
        private @Nullable String routing;
        private final List<String> sourceIncludes = new ArrayList<>();
        private boolean fetchSource = true;
        private Mode mode = Mode.AUTO;
        private RetryPolicy retry = RetryPolicy.of(r -> r.maxAttempts(10).retryOn(Failures.rejected()));
        private boolean prefetch;
        private int sliceId;
        private int sliceMax = 1;
        private @Nullable String pointInTime;

        private Builder() {}

        /**
         * Required.
         *
         * @param client the client every search goes through; not closed by the stream
         * @return this builder
         * @throws NullPointerException if {@code client} is {@code null}
         */
        public Builder client(ElasticsearchClient client) {
            this.client = Objects.requireNonNull(client, "client cannot be null");
            return this;
        }

        /**
         * Required: an index, alias or pattern.
         *
         * @param index the index, alias or pattern to search
         * @return this builder
         * @throws NullPointerException if {@code index} is {@code null}
         */
        public Builder index(String index) {
            this.index = Objects.requireNonNull(index, "index cannot be null");
            return this;
        }

        /**
         * The documents to stream. Default: every document.
         *
         * @param query the query; only its matches are returned, in no particular relevance order
         * @return this builder
         * @throws NullPointerException if {@code query} is {@code null}
         */
        public Builder query(Query query) {
            this.query = Objects.requireNonNull(query, "query cannot be null");
            return this;
        }

        /**
         * {@link #query(Query)} with a lambda, in the style of the elasticsearch-java client.
         *
         * @param fn builds the query
         * @return this builder
         */
        public Builder query(Function<Query.Builder, co.elastic.clients.util.ObjectBuilder<Query>> fn) {
            return query(fn.apply(new Query.Builder()).build());
        }

        /**
         * Hits per page. Default 1000.
         *
         * @param pageSize the maximum number of hits {@link DocStream#next()} returns
         * @return this builder
         * @throws IllegalArgumentException unless 1..10,000
         */
        public Builder pageSize(int pageSize) {
            this.pageSize = Checks.between(pageSize, 1, 10_000, "pageSize");
            return this;
        }

        /**
         * How long the point in time or scroll lives between two pages. Default 5 minutes.
         *
         * @param keepAlive the keep-alive, sent in milliseconds; longer than the caller works on a page
         * @return this builder
         * @throws NullPointerException if {@code keepAlive} is {@code null}
         * @throws IllegalArgumentException if not positive
         */
        public Builder keepAlive(Duration keepAlive) {
            this.keepAlive = Checks.positive(keepAlive, "keepAlive");
            return this;
        }

        /**
         * Only the shards of this routing value. Default: every shard.
         *
         * @param routing the routing value, or {@code null} to search every shard
         * @return this builder
         */
        public Builder routing(String routing) {
            this.routing = routing;
            return this;
        }

        /**
         * Source fields to return. Default: the whole source.
         *
         * @param fields the source include patterns (dotted paths, wildcards allowed); replaces those set
         *     before, and an empty list means the whole source
         * @return this builder
         * @throws NullPointerException if {@code fields} is {@code null}
         */
        public Builder sourceIncludes(List<String> fields) {
            this.sourceIncludes.clear();
            this.sourceIncludes.addAll(fields);
            return this;
        }

        /**
         * Whether to return sources at all. Default true.
         *
         * @param fetch false to return hits without a source (ids, routing, seq_no and primary term only)
         * @return this builder
         */
        public Builder fetchSource(boolean fetch) {
            this.fetchSource = fetch;
            return this;
        }

        /**
         * How to page through the matches. Default {@link Mode#AUTO}.
         *
         * @param mode point in time, scroll, or point in time falling back to scroll
         * @return this builder
         * @throws NullPointerException if {@code mode} is {@code null}
         */
        public Builder mode(Mode mode) {
            this.mode = Objects.requireNonNull(mode, "mode cannot be null");
            return this;
        }

        /**
         * Applied to rejected (429) page searches. Default: 10 attempts, the default backoff.
         *
         * @param retry the retry policy: its attempts, backoff and deadline; only rejections are retried,
         *     and only if its predicate accepts them too
         * @return this builder
         * @throws NullPointerException if {@code retry} is {@code null}
         */
        public Builder retryPolicy(RetryPolicy retry) {
            this.retry = Objects.requireNonNull(retry, "retryPolicy cannot be null");
            return this;
        }

        /**
         * Fetch the next page while the caller works on this one. Default false.
         *
         * @param prefetch true to read one page ahead on a daemon thread, shut down by {@link DocStream#close()}
         * @return this builder
         */
        public Builder prefetch(boolean prefetch) {
            this.prefetch = prefetch;
            return this;
        }

        /**
         * Only one slice of the matches: slice {@code id} of {@code max}, as Elasticsearch's sliced
         * search divides them (by shard first, then within shards). The {@code max} streams with ids
         * {@code 0..max-1} on one point in time together return every match exactly once. Default: no
         * slicing ({@code max} 1).
         *
         * @param id this stream's slice, from 0 to {@code max - 1}
         * @param max the number of slices, from 1 (no slicing) to 1024
         * @return this builder
         * @throws IllegalArgumentException if {@code max} is not 1..1024 or {@code id} is not 0..max-1
         */
        public Builder slice(int id, int max) {
            if (max < 1 || max > 1024) {
                throw new IllegalArgumentException("slice max must be between 1 and 1024, got " + max);
            }
            if (id < 0 || id >= max) {
                throw new IllegalArgumentException("slice id must be between 0 and " + (max - 1) + ", got " + id);
            }
            this.sliceId = id;
            this.sliceMax = max;
            return this;
        }

        /**
         * Streams through a point in time the caller opened (and closes, after every stream on it is
         * closed), so that several sliced streams see the same snapshot. The stream does not close it.
         * Default: the stream opens its own and closes it on {@link DocStream#close()}.
         *
         * @param pitId the id the open-point-in-time call returned; its keep-alive is extended by
         *     {@link #keepAlive(Duration)} with every page
         * @return this builder
         * @throws NullPointerException if {@code pitId} is {@code null}
         */
        public Builder pointInTime(String pitId) {
            this.pointInTime = Objects.requireNonNull(pitId, "pitId cannot be null");
            return this;
        }

        /**
         * Builds the stream. No search is sent before the first {@link DocStream#next()}; the first
         * esrel entry point built on a client's transport sends it one request ({@code GET /}) to check
         * that the server accepts this client line.
         *
         * @return the new stream, to be closed after use
         * @throws NullPointerException if the client or the index is missing
         * @throws IllegalStateException if the server refuses the requests of this client line
         * @throws IllegalArgumentException if a given point in time is combined with a routing value or
         *     with {@link Mode#SCROLL} (the point in time already fixes the shards and the mode)
         */
        public DocStream build() {
            if (pointInTime != null && routing != null) {
                throw new IllegalArgumentException("a given point in time already fixes the shards searched;"
                        + " open it with routing [" + routing + "] instead of setting routing on the stream");
            }
            if (pointInTime != null && mode == Mode.SCROLL) {
                throw new IllegalArgumentException("a given point in time cannot be read with a scroll; leave the mode"
                        + " at AUTO or POINT_IN_TIME");
            }
            return new DocStream(this);
        }
    }
}
