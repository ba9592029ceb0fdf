package io.github.esrel.join;

import co.elastic.clients.elasticsearch._types.FieldValue;
import co.elastic.clients.elasticsearch._types.Time;
import co.elastic.clients.elasticsearch.core.search.Hit;
import co.elastic.clients.elasticsearch.core.search.ResponseBody;
import co.elastic.clients.elasticsearch.core.search.TotalHitsRelation;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * Streams the parent side of {@link Join#childrenOf} in the parent order, page by page.
 *
 * <p>The first page is read from the index directly, with one look-ahead hit: a join whose parents
 * fit in one page costs no point in time. When more pages are needed, a point in time (PIT) is
 * opened and every later page reads it: the first PIT page skips the parents already returned
 * ({@code from}), later ones continue after the last parent returned ({@code search_after}, with
 * the implicit {@code _shard_doc} tiebreaker). Parents changed between the first page and the
 * opening of the PIT can shift that one boundary, as with from/size paging; set
 * {@link Join.Builder#consistentPaging(boolean)} to read the first page from a PIT as well.
 *
 * <p>Why not {@link io.github.esrel.doc.DocStream}, esrel's pager: a join's position outlives the call that
 * reached it (point in time, sort values and offset travel in a {@link JoinCursor} to a later call, maybe in
 * another process), the parents come in the caller's sort and document class rather than {@code _shard_doc}
 * order as JSON trees, and a join that fits one page opens no point in time at all. What both share, opening
 * and closing a point in time, is in {@link Pits}.
 */
final class ParentPages<P> {

    /**
     * One page of parents.
     *
     * @param hits the parents, without the look-ahead hit
     * @param more whether parents (may) follow
     * @param total how many parents match, as Elasticsearch counted them ({@code -1} when it did not)
     * @param totalExact whether {@code total} is exact rather than a lower bound
     */
    record Page<P>(List<Hit<P>> hits, boolean more, long total, boolean totalExact) {}

    private final Searcher searcher;
    private final JoinQuery<P, ?> q;
    private final Time keepAlive;
    private final boolean pitFromStart;
    private final int window;
    private final Trips trips;
    private @Nullable String pitId;
    private List<FieldValue> after;
    private int offset;

    /**
     * @param start where to continue ({@link JoinResult#next()} of the previous page), or {@code null} for the first page
     * @param pitFromStart read the first page from a point in time too ({@link Join.Builder#consistentPaging(boolean)})
     * @param window the most hits one search may reach ({@code from + size}): the join's page size, or
     *     Elasticsearch's default {@code index.max_result_window} if larger
     */
    ParentPages(
            Searcher searcher,
            JoinQuery<P, ?> q,
            Time keepAlive,
            @Nullable JoinCursor start,
            boolean pitFromStart,
            int window,
            Trips trips) {
        this.searcher = searcher;
        this.q = q;
        this.keepAlive = keepAlive;
        this.pitFromStart = pitFromStart;
        this.window = window;
        this.trips = trips;
        if (start != null) {
            this.pitId = start.pitId();
            this.after = start.searchAfter();
            this.offset = start.offset();
        } else {
            this.after = List.of();
        }
    }

    /** Up to {@code n} parents after those consumed so far; {@code more} says whether others (may) follow. */
    Page<P> fetch(int n) {
        if (pitId == null && (offset > 0 || pitFromStart)) {
            pitId = Pits.open(searcher.client(), q.parentIndex(), keepAlive, trips);
        }
        int from = pitId != null && after.isEmpty() ? offset : 0;
        // One hit more than asked tells whether more follow, within the result window: the first PIT
        // page after a direct one skips the parents already returned with from.
        int size = Math.min(n + 1, Math.max(1, window - from));
        ResponseBody<P> r = searcher.one(
                pitId == null ? n + " parents" : n + " parents (point in time)",
                q.parentIndex(),
                Requests.parentPage(q, pitId, keepAlive, after, from, size),
                q.parentType(),
                trips);
        if (r.pitId() != null) {
            pitId = r.pitId();
        }
        List<Hit<P>> hits = r.hits().hits();
        // Without the look-ahead hit, a full page may or may not be followed by more: say more, and
        // let the next fetch find out.
        boolean more = size > n ? hits.size() > n : hits.size() == size;
        long total = r.hits().total() == null ? -1 : r.hits().total().value();
        boolean exact = r.hits().total() != null && r.hits().total().relation() == TotalHitsRelation.Eq;
        return new Page<>(more ? hits.subList(0, n) : hits, more, total, exact);
    }

    /** Marks the first {@code count} hits of {@code page} as returned to the caller. */
    void consumed(Page<P> page, int count) {
        if (count == 0) {
            return;
        }
        if (pitId != null) {
            after = page.hits().get(count - 1).sort();
            offset = 0;
        } else {
            offset += count;
        }
    }

    /** Where the next call continues: after the parents consumed so far, in the same point in time. */
    JoinCursor cursor() {
        return new JoinCursor(pitId, after, offset);
    }

    /** Releases the point in time, if one was opened. */
    void close() {
        if (pitId != null) {
            Pits.close(searcher.client(), pitId, q.parentIndex(), trips);
            pitId = null;
        }
    }
}
