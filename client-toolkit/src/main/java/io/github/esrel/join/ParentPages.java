package io.github.esrel.join;

import co.elastic.clients.elasticsearch.ElasticsearchClient;
import co.elastic.clients.elasticsearch._types.ElasticsearchException;
import co.elastic.clients.elasticsearch._types.FieldValue;
import co.elastic.clients.elasticsearch._types.Time;
import co.elastic.clients.elasticsearch.core.search.Hit;
import co.elastic.clients.elasticsearch.core.search.ResponseBody;
import co.elastic.clients.elasticsearch.core.search.TotalHitsRelation;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.util.List;

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
 */
final class ParentPages<P> {

    private static final Logger log = LoggerFactory.getLogger(ParentPages.class);

    record Page<P>(List<Hit<P>> hits, boolean more, long total, boolean totalExact) {}

    private final Searcher searcher;
    private final JoinQuery<P, ?> q;
    private final Time keepAlive;
    private final boolean pitFromStart;
    private final int window;
    private final Trips trips;
    private String pitId;
    private List<FieldValue> after;
    private int offset;

    /**
     * @param window the most hits one search may reach ({@code from + size}): the join's page size, or
     *     Elasticsearch's default {@code index.max_result_window} if larger
     */
    ParentPages(Searcher searcher, JoinQuery<P, ?> q, Time keepAlive, JoinCursor start, boolean pitFromStart, int window,
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
            openPit();
        }
        int from = pitId != null && after.isEmpty() ? offset : 0;
        // One hit more than asked tells whether more follow, within the result window: the first PIT
        // page after a direct one skips the parents already returned with from.
        int size = Math.min(n + 1, Math.max(1, window - from));
        ResponseBody<P> r = searcher.one(pitId == null ? n + " parents" : n + " parents (point in time)", q.parentIndex(),
            Requests.parentPage(q, pitId, keepAlive, after, from, size), q.parentType(), trips);
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

    JoinCursor cursor() {
        return new JoinCursor(pitId, after, offset);
    }

    /** Releases the point in time, if one was opened. */
    void close() {
        if (pitId != null) {
            closePit(searcher.client(), pitId, q.parentIndex(), trips);
            pitId = null;
        }
    }

    private void openPit() {
        try {
            trips.add("open point in time [" + q.parentIndex() + "]");
            pitId = searcher.client().openPointInTime(o -> o.index(q.parentIndex()).keepAlive(keepAlive)).id();
        } catch (ElasticsearchException e) {
            throw Errors.translate("opening a point in time", q.parentIndex(), e);
        } catch (IOException e) {
            throw Errors.io("opening a point in time", q.parentIndex(), e);
        }
    }

    /** Best effort: a PIT that cannot be closed expires with its keep-alive. */
    static void closePit(ElasticsearchClient es, String pitId, String index, Trips trips) {
        try {
            trips.add("close point in time [" + index + "]");
            es.closePointInTime(c -> c.id(pitId));
        } catch (Exception e) {
            log.warn("closing the point in time on [{}] failed; it expires with its keep-alive", index, e);
        }
    }
}
