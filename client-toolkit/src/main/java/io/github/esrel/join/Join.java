package io.github.esrel.join;

import co.elastic.clients.elasticsearch.ElasticsearchClient;
import co.elastic.clients.util.ObjectBuilder;
import io.github.esrel.doc.DocumentConverter;
import io.github.esrel.internal.Clients;
import java.time.Duration;
import java.util.Objects;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * Application-side joins (seed 000 §1.1): one query finds the parents' keys, one {@code terms} query
 * finds their children, and the children come back paired with their typed parents. Both
 * directions:
 * <ul>
 *   <li>{@link #childrenOf} — children of parents matching a query ("users named John → their blog
 *       posts"): a page of parents in the parent order, each with its best children and their count;
 *       the parent side pages with a point in time and {@code search_after} ({@link JoinResult#next()}).</li>
 *   <li>{@link #childrenWhereParent} — children filtered by parent attributes ("popular posts whose
 *       author is female"): the top children in the child order among the children of every
 *       matching parent, paired with their parents; further pages continue with a point in time on the
 *       child index and {@code search_after} ({@link JoinResult#next()}), as deep as there are children.</li>
 * </ul>
 *
 * <pre>{@code
 * Join join = Join.of(b -> b.client(es));                       // cap: 10,000 parents per call
 * JoinQuery<User, Post> q = JoinQuery.of(User.class, Post.class, b -> b
 *     .parents("users", p -> p.term(t -> t.field("gender").value("female")))
 *     .children("posts", "user_id")
 *     .childQuery(c -> c.term(t -> t.field("popularity").value("high")))
 *     .childrenPerPage(20));
 * JoinResult<User, Post> r = join.childrenWhereParent(q);
 * r.orThrow();                                  // over the cap: JoinCapExceededException, "denormalize ..."
 * r.pairs().forEach(p -> show(p.child().value(), p.parent().value()));
 * r.roundTrips();                               // 2 when the parents fit in one page
 * JoinResult<User, Post> page2 = join.childrenWhereParent(q, r.next().orElseThrow());   // the next 20
 * }</pre>
 *
 * <h2>Plans and round trips</h2>
 * {@link #childrenWhereParent} has two ways to find the children of matching parents, with the same
 * answer ({@link JoinQuery.Plan}):
 * <ul>
 *   <li><b>keys-first</b>: read the key of every matching parent, then search the children of those
 *       keys with one {@code terms} query. Two round trips when the matching parents fit in one page
 *       ({@link Builder#pageSize(int)}, at most the parent index's {@code index.max_result_window};
 *       10,000 by default). Keys beyond the child index's {@code index.max_terms_count} are split
 *       into batches that still travel in that one round trip ({@code _msearch}), so 65,536 keys take
 *       two round trips when the parent index lets one page hold them. More parents than one page
 *       take a point in time and one round trip per page. A third round trip reads
 *       {@code index.max_terms_count} when a join ships more keys than the default 65,536 or the
 *       cluster rejects a batch (the limit was lowered); it is cached.</li>
 *   <li><b>children-first</b>: read the children in the child order and keep those whose parent
 *       matches, checking the parents of each page of children with one search. Two round trips when
 *       the first page of children holds the answer. Its cost follows the children it must read
 *       (about {@code (from + size) / share of matching parents}), not the number of matching
 *       parents: the plan for broad parent conditions.</li>
 * </ul>
 * The default, {@link JoinQuery.Plan#AUTO}, starts with one {@code _msearch} that reads the first
 * {@value #PREVIEW_KEYS} matching parents' keys and the first children (4 &times; {@code (from + size)},
 * at least 100), and counts the parent index (a count this {@code Join} then caches for a minute).
 * When every matching parent is in that preview the children already read are filtered by their
 * keys, often answering in that one round trip (two when the parents' sources must still be read: a
 * doc-values key or {@link JoinQuery.ParentFetch#LAZY}), else the keys go to a {@code terms} query,
 * with the parents' sources read in the same {@code _msearch} (two round trips; three when
 * {@link JoinQuery.ParentFetch#LAZY}). A parent condition asked in the last minute (a {@code Join} remembers
 * the match counts of 1,000 conditions, the least recently used forgotten first) starts from its last count:
 * one that matched more parents than the preview holds is only counted, not previewed, and one that
 * matched few among many reads no children in the first round trip, since the first ones would not hold
 * the page. A count that changed since costs at most a round trip, never the answer. Asked again within the minute,
 * a question also sends its second step beside the first, built from the keys its last call found (for 1,000
 * questions): children-first checks which parents of the last first read's children match beside this read, and
 * keys-first reads the children of the last answer's keys (with their parents, when the preview reads keys alone)
 * beside the preview; with {@code _id} keys it reads no preview at all, but counts, in one search, the parents that
 * match and those of them among the last answer's keys (both equal to the keys: they are still exactly the matching
 * parents' keys), beside their children. The same search counts the last page's parents and sums their
 * {@code _seq_no}, which changes with every write of a document: the same sum, and they are the parents as last read
 * (kept for 128 questions, 100 parents a page at most), so the page's parents are not read again. Those searches run
 * now, on the data as it is now, so nothing is taken on trust: when the keys still hold the call is answered in one
 * round trip (two when the page has a parent the last one had not, or one that changed since; the question's next call
 * then reads its page's parents beside the check, until they hold still), and otherwise the keys that differ are read
 * in the second, as before (with {@code _id} keys, the call then reads as the first time did, a round trip more).
 * When more parents match, it takes children-first if the
 * children to read are estimated fewer than the matching parents (two round trips when it works out),
 * keys-first otherwise (one round trip more than keys-first alone). Every request is listed in
 * {@link JoinResult#requests()}, and {@link JoinResult#plan()} says which plan answered.
 *
 * <h2>The fan-out cap (seed 003's trap)</h2>
 * An application-side join is only as good as the number of parent keys it must read and ship, or of
 * children it must read and check. When the parent condition is broad and the child condition
 * selective (1 user in 5,000 has a popular photo, 20 photos wanted), neither scales, and the answer
 * is to copy the parent fields into the children (denormalize) and query the children alone. So
 * every call reads at most {@link Builder#maxParents(int)} parent keys (10,000 by default) and at most
 * {@link Builder#maxProbedChildren(int)} children (5,000), and says so:
 * <ul>
 *   <li>{@link #childrenWhereParent} counts the matching parents in its first round trip; if they
 *       exceed the cap and children-first cannot find the answer within its budget, it returns
 *       {@link JoinResult.Status#CAP_EXCEEDED} without shipping any key;</li>
 *   <li>{@link #childrenOf} streams parents page by page and stops as soon as its page is full; if
 *       it reads the cap first (only parents with children wanted, and few have them) it returns
 *       what it found as {@link JoinResult.Status#PARTIAL}, with a cursor to continue.</li>
 * </ul>
 * Both carry {@link JoinResult#advice()} naming what to denormalize; {@link JoinResult#orThrow()}
 * makes them a {@link JoinCapExceededException}. Memory stays bounded by the caps (parent keys, and
 * parent sources unless {@link JoinQuery.ParentFetch#LAZY}).
 *
 * <h2>Cost</h2>
 * Measured on one 2-core node (JoinBenchmark: the 20 newest posts mentioning a word by users of one
 * country, 10,000 of 20,000 users; the denormalized query at 1x): the default plan, which goes
 * children-first there, 2.8-2.9x in two round trips (a search that does no work at all already costs
 * 0.7-0.9x); keys-first with {@code _id} keys 11-14x, with a doc-values key field and
 * {@link JoinQuery.ParentFetch#LAZY} 5-6x (reading 10,000 keys alone is 2.2-2.7x, the {@code terms}
 * query of 10,000 keys 1.3-1.5x). A selective condition (334 users) joins keys-first in two round trips
 * (a preview of 256 keys took three, at 4.4-4.6x). With the condition's count remembered, the broad join
 * measured 2.3-2.6x and the selective one 2.5x (two runs); asked again with their second step sent beside the first
 * (one round trip), and the selective one's page parents checked by their {@code _seq_no} instead of read again,
 * 1.84-2.10x and 1.59-1.96x (four runs on both client lines, idle, 2026-12-05); see the README's benchmark table for
 * the latest. Use joins where denormalizing is not worth it (parent fields that change often,
 * rare queries) and denormalize where the fan-out is large.
 *
 * <p>Key fields must be {@code keyword} or numeric fields with doc values; {@link #childrenOf}
 * collapses children on their key field, so it must hold a single value per child. Failures are
 * {@link JoinException}s. Thread-safe; holds no connection of its own.
 */
public final class Join {

    /** Default {@link Builder#maxParents(int)}. */
    public static final int DEFAULT_MAX_PARENTS = 10_000;
    /** Default {@link Builder#pageSize(int)}: Elasticsearch's default {@code index.max_result_window}. */
    public static final int DEFAULT_PAGE_SIZE = 10_000;
    /** Largest accepted {@link Builder#maxParents(int)}. */
    public static final int MAX_PARENTS_LIMIT = 10_000_000;
    /**
     * Matching parents whose keys the first round trip of {@link JoinQuery.Plan#AUTO} reads. Fewer
     * parents join keys-first in 2 round trips, more in 3. The preview reads keys alone (doc values)
     * unless the key is {@code _id} and parents are fetched eagerly: reading an {@code _id} loads the
     * stored-field block that holds the source anyway. Measured (JoinBenchmark, 2 runs each, interleaved):
     * 512 instead of 256 took a condition on 334 parents from 3 round trips at 4.4-4.6x the denormalized
     * query to 2 at 2.8-4.0x, and left the broad 10,000-parent join where run-to-run noise puts it
     * (2.7-3.4x with 512, 3.0-3.5x with 256).
     */
    public static final int PREVIEW_KEYS = 512;
    /** Default {@link Builder#maxProbedChildren(int)}. */
    public static final int DEFAULT_MAX_PROBED_CHILDREN = 5_000;
    /** The fewest children the first round trip of {@link JoinQuery.Plan#AUTO} reads (else 4 x (from + size)). */
    static final int MIN_PROBE = 100;

    private final ElasticsearchClient es;
    private final Searcher searcher;
    private final JoinSettings settings;
    private final TermsLimits limits;
    private final TermsBatches batches;
    private final ParentCounts parentCounts = new ParentCounts(System::nanoTime);
    private final ChildOrderBounds childOrderBounds = new ChildOrderBounds(System::nanoTime);
    private final RecentKeys recentKeys = new RecentKeys(System::nanoTime);

    private Join(Builder b) {
        this.es = Clients.adopt(Objects.requireNonNull(b.client, "client cannot be null"));
        this.searcher = new Searcher(es, b.converter);
        this.settings =
                new JoinSettings(b.maxParents, b.pageSize, b.pitKeepAlive, b.consistentPaging, b.maxProbedChildren);
        this.limits = new TermsLimits(b.maxTermsCount);
        this.batches = new TermsBatches(searcher, limits);
    }

    /**
     * Builds a join with a lambda, in the style of the elasticsearch-java client. The first entry
     * point built on a client's transport sends it one request ({@code GET /}) to check that the
     * server accepts this client line.
     *
     * @param fn sets the join up on a fresh builder and returns it; it must set the client
     * @return the join
     * @throws NullPointerException if {@code fn} sets no client
     * @throws IllegalStateException if the server refuses this client line's requests (a server of
     *     another major version)
     */
    public static Join of(Function<Builder, Builder> fn) {
        return fn.apply(new Builder()).build();
    }

    /**
     * Starts a join; {@link Builder#client} must be set before {@link Builder#build()}.
     *
     * @return a new builder with the defaults
     */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * Returns the fan-out cap: the most parents one call reads.
     *
     * @return {@link Builder#maxParents(int)}, {@value #DEFAULT_MAX_PARENTS} unless set
     */
    public int maxParents() {
        return settings.maxParents();
    }

    /**
     * Returns how many parents one search reads.
     *
     * @return {@link Builder#pageSize(int)}, {@value #DEFAULT_PAGE_SIZE} unless set
     */
    public int pageSize() {
        return settings.pageSize();
    }

    // --- children filtered by parent attributes ---------------------------------------------------

    /**
     * The first page of {@link #childrenWhereParent(JoinQuery, JoinCursor)}.
     *
     * @param q the parent and child sides, the page of children wanted and the plan
     * @param <P> the parent type
     * @param <C> the child type
     * @return as {@link #childrenWhereParent(JoinQuery, JoinCursor)}
     * @throws JoinException as {@link #childrenWhereParent(JoinQuery, JoinCursor)}
     * @throws IllegalArgumentException as {@link #childrenWhereParent(JoinQuery, JoinCursor)}
     * @throws NullPointerException if {@code q} is {@code null}
     */
    public <P, C> JoinResult<P, C> childrenWhereParent(JoinQuery<P, C> q) {
        return childrenWhereParent(q, null);
    }

    /**
     * Children filtered by parent attributes: the children matching {@link JoinQuery#childQuery()}
     * whose parent matches {@link JoinQuery#parentQuery()}, in the child sort, a page of
     * {@link JoinQuery#childrenPerPage()}, each paired with its parent.
     *
     * <p>Runs the query's {@link JoinQuery#plan()}: keys-first (every matching parent's key, up to
     * the cap, then the children of those keys in one round trip, batched to the child index's
     * {@code index.max_terms_count} and merged by esrel), children-first (children in the child order,
     * their parents checked page by page), or, by default, whichever the first round trip says is
     * cheaper (see the class comment). The answer is the same.
     *
     * <p>Paging: the first page starts at {@link JoinQuery#from()}; {@link JoinResult#next()} continues
     * with a point in time on the child index and {@code search_after}, so that pages neither skip nor
     * repeat a child and go as deep as there are children (no {@code index.max_result_window} limit).
     * The point in time is opened for the second page and closed with the last one (or by
     * {@link #close(JoinCursor)}); the parent condition is evaluated anew on every page.
     *
     * @param q the parent and child sides, the page of children wanted and the plan; the same query as the
     *     page the cursor came from
     * @param cursor where to continue ({@link JoinResult#next()} of the previous page), or {@code null} for
     *     the first page
     * @param <P> the parent type
     * @param <C> the child type
     * @return {@link JoinResult.Status#COMPLETE}, or {@link JoinResult.Status#CAP_EXCEEDED} (no pairs)
     *     when more parents match than {@link Builder#maxParents(int)} and children-first cannot
     *     answer within {@link Builder#maxProbedChildren(int)} children (or the plan is keys-first);
     *     {@link JoinResult#next()} is present while children may follow
     * @throws JoinException if an index is missing, a key field cannot be searched, a source cannot be
     *     mapped, the cursor's point in time has expired (404), or the cluster fails
     * @throws IllegalArgumentException if several batches are needed and the child sort is not by score
     *     or fields (esrel cannot merge it), or the cursor comes from {@link #childrenOf}
     * @throws NullPointerException if {@code q} is {@code null}
     */
    public <P, C> JoinResult<P, C> childrenWhereParent(JoinQuery<P, C> q, @Nullable JoinCursor cursor) {
        Objects.requireNonNull(q, "query cannot be null");
        if (cursor != null) {
            cursor.requireSide(JoinCursor.Side.CHILDREN, "childrenWhereParent");
        }
        return new ChildrenWhereParent<>(searcher, batches, parentCounts, childOrderBounds, recentKeys, settings, q)
                .page(cursor);
    }

    // --- children of parents matching a query -----------------------------------------------------

    /**
     * The first page of {@link #childrenOf(JoinQuery, JoinCursor)}.
     *
     * @param q the parent and child sides and the page of parents wanted
     * @param <P> the parent type
     * @param <C> the child type
     * @return as {@link #childrenOf(JoinQuery, JoinCursor)}
     * @throws JoinException as {@link #childrenOf(JoinQuery, JoinCursor)}
     * @throws NullPointerException if {@code q} is {@code null}
     */
    public <P, C> JoinResult<P, C> childrenOf(JoinQuery<P, C> q) {
        return childrenOf(q, null);
    }

    /**
     * Children of parents matching a query: {@link JoinQuery#parentsPerPage()} parents in the parent order
     * ({@link JoinQuery#parentSort()}, by score by default), each with its best
     * {@link JoinQuery#childrenPerParent()} children matching {@link JoinQuery#childQuery()} (field
     * collapsing on the child key) and how many match in all.
     *
     * <p>With {@link JoinQuery#includeChildless()} {@code false}, parents without matching children
     * are skipped and parents are read page after page ({@link Builder#pageSize(int)} at a time) until
     * the page is full, all parents are read, or the cap is reached ({@link JoinResult.Status#PARTIAL}).
     * Each page of parents costs one round trip for the parents and one for their children.
     *
     * @param q the parent and child sides and the page of parents wanted; the same query as the
     *     page the cursor came from
     * @param <P> the parent type
     * @param <C> the child type
     * @param cursor where to continue ({@link JoinResult#next()} of the previous page), or {@code null}
     *     for the first page
     * @return {@link JoinResult.Status#COMPLETE} or {@link JoinResult.Status#PARTIAL}; {@link JoinResult#next()}
     *     is present while parents remain
     * @throws JoinException if an index is missing, the child key cannot be collapsed on (not a
     *     single-valued keyword or numeric field), a source cannot be mapped, the cursor's point in
     *     time has expired (404), or the cluster fails
     * @throws IllegalArgumentException if the cursor comes from {@link #childrenWhereParent}
     * @throws NullPointerException if {@code q} is {@code null}
     */
    public <P, C> JoinResult<P, C> childrenOf(JoinQuery<P, C> q, @Nullable JoinCursor cursor) {
        Objects.requireNonNull(q, "query cannot be null");
        if (cursor != null) {
            cursor.requireSide(JoinCursor.Side.PARENTS, "childrenOf");
        }
        return new ChildrenOf<>(searcher, batches, settings, q).page(cursor);
    }

    /**
     * Releases the point in time of a cursor that will not be followed (otherwise it expires with
     * {@link Builder#pitKeepAlive(Duration)}). Best effort; does nothing for a cursor without one.
     *
     * @param cursor the cursor to abandon, or {@code null} (nothing to do)
     */
    public void close(@Nullable JoinCursor cursor) {
        if (cursor != null && cursor.pitId() != null) {
            Pits.close(es, cursor.pitId(), "cursor", new Trips());
        }
    }

    @Override
    public String toString() {
        return "Join{maxParents=" + settings.maxParents() + ", pageSize=" + settings.pageSize() + ", maxTermsCount="
                + (limits.isFixed() ? limits.current("") : "from index settings") + ", pitKeepAlive="
                + settings.pitKeepAlive()
                + ", consistentPaging=" + settings.consistentPaging() + ", maxProbedChildren="
                + settings.maxProbedChildren()
                + '}';
    }

    /** Builds a {@link Join}; only {@link #client} is required. */
    public static final class Builder implements ObjectBuilder<Join> {

        private @Nullable ElasticsearchClient client;
        private int maxParents = DEFAULT_MAX_PARENTS;
        private int pageSize = DEFAULT_PAGE_SIZE;
        private @Nullable Integer maxTermsCount;
        private Duration pitKeepAlive = Duration.ofMinutes(1);
        private boolean consistentPaging;
        private int maxProbedChildren = DEFAULT_MAX_PROBED_CHILDREN;
        private @Nullable DocumentConverter converter;

        Builder() {}

        /**
         * The client to search with (required). Its transport (nodes, authentication, TLS) is used;
         * the join opens no connection of its own.
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
         * The fan-out cap: the most parents one call reads (and whose keys it ships to the child side).
         * Default {@value Join#DEFAULT_MAX_PARENTS}. See the class comment for what happens at the cap.
         *
         * @param maxParents the most parents per call
         * @return this builder
         * @throws IllegalArgumentException if not in 1..{@value Join#MAX_PARENTS_LIMIT}
         */
        public Builder maxParents(int maxParents) {
            if (maxParents < 1 || maxParents > MAX_PARENTS_LIMIT) {
                throw new IllegalArgumentException(
                        "maxParents must be in 1.." + MAX_PARENTS_LIMIT + ", got " + maxParents);
            }
            this.maxParents = maxParents;
            return this;
        }

        /**
         * Parents read per search. Default {@value Join#DEFAULT_PAGE_SIZE}; at most the parent index's
         * {@code index.max_result_window} (a larger page fails with a {@link JoinException} naming it).
         * A join whose parents fit in one page needs no point in time.
         *
         * @param pageSize the most parents per search
         * @return this builder
         * @throws IllegalArgumentException if not positive
         */
        public Builder pageSize(int pageSize) {
            if (pageSize < 1) {
                throw new IllegalArgumentException("pageSize must be at least 1, got " + pageSize);
            }
            this.pageSize = pageSize;
            return this;
        }

        /**
         * Keys per {@code terms} query, instead of reading each child index's
         * {@code index.max_terms_count} (the default: assumed 65,536 until a join needs more or the
         * cluster rejects a batch, then read from the settings and cached).
         *
         * @param maxTermsCount the most keys per {@code terms} query, for every child index
         * @return this builder
         * @throws IllegalArgumentException if not positive
         */
        public Builder maxTermsCount(int maxTermsCount) {
            if (maxTermsCount < 1) {
                throw new IllegalArgumentException("maxTermsCount must be at least 1, got " + maxTermsCount);
            }
            this.maxTermsCount = maxTermsCount;
            return this;
        }

        /**
         * How long a point in time stays open between two pages (default 1 minute). Sent to
         * Elasticsearch in whole seconds.
         *
         * @param keepAlive how long an unread cursor's point in time lives
         * @return this builder
         * @throws NullPointerException if {@code keepAlive} is {@code null}
         * @throws IllegalArgumentException if shorter than one second
         */
        public Builder pitKeepAlive(Duration keepAlive) {
            Objects.requireNonNull(keepAlive, "keepAlive cannot be null");
            if (keepAlive.toSeconds() < 1) {
                throw new IllegalArgumentException("pitKeepAlive must be at least 1s, got " + keepAlive);
            }
            this.pitKeepAlive = keepAlive;
            return this;
        }

        /**
         * Read the first page of {@link Join#childrenOf} from a point in time too, so that every page
         * comes from one view of the parent index (default {@code false}: the first page is read
         * directly, saving two round trips when all parents fit in it).
         *
         * @param consistent whether every page, the first included, reads a point in time
         * @return this builder
         */
        public Builder consistentPaging(boolean consistent) {
            this.consistentPaging = consistent;
            return this;
        }

        /**
         * The most children {@link JoinQuery.Plan#CHILDREN_FIRST} reads (in the child order, paged
         * with {@code from}) before it gives up and joins keys-first. Default
         * {@value Join#DEFAULT_MAX_PROBED_CHILDREN}; at most the child index's
         * {@code index.max_result_window} (10,000 by default).
         *
         * @param maxProbedChildren the most children children-first reads per call
         * @return this builder
         * @throws IllegalArgumentException if not positive
         */
        public Builder maxProbedChildren(int maxProbedChildren) {
            if (maxProbedChildren < 1) {
                throw new IllegalArgumentException("maxProbedChildren must be at least 1, got " + maxProbedChildren);
            }
            this.maxProbedChildren = maxProbedChildren;
            return this;
        }

        /**
         * How the sources of parents and children are mapped to the join's types. Default: the client's own JSON
         * mapper. The Spring Boot starters set Spring Data's converter here when the application has Spring Data
         * Elasticsearch ({@code esrel-spring-data}), so that entities read as Spring Data reads them.
         *
         * @param converter the converter, not {@code null}
         * @return this builder
         * @throws NullPointerException if {@code converter} is {@code null}
         */
        public Builder documentConverter(DocumentConverter converter) {
            this.converter = Objects.requireNonNull(converter, "documentConverter cannot be null");
            return this;
        }

        /** @throws NullPointerException if no client was given */
        @Override
        public Join build() {
            Objects.requireNonNull(client, "client cannot be null");
            return new Join(this);
        }
    }
}
