package io.github.esrel.join;

import co.elastic.clients.elasticsearch._types.FieldValue;
import co.elastic.clients.elasticsearch._types.SortOptions;
import co.elastic.clients.elasticsearch._types.SortOrder;
import co.elastic.clients.elasticsearch._types.Time;
import co.elastic.clients.elasticsearch.core.SearchRequest;
import co.elastic.clients.elasticsearch.core.search.ResponseBody;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * Where one page of {@link Join#childrenWhereParent} reads the child side.
 *
 * <p>The first page reads the child index directly and skips {@link JoinQuery#from()} children, as
 * from/size paging does (no point in time for a join that needs one page). Later pages read a point in
 * time (PIT) on the child index: the first PIT page skips the children already returned, later ones
 * continue after the sort values of the last child returned ({@code search_after}), sorted by the child
 * sort and then {@code _shard_doc}, a total order in which the pages of several {@code terms} batches
 * merge and the next page starts exactly where the last ended. So paging has no depth limit
 * ({@code index.max_result_window} bounds only {@code from + childrenPerPage} of one page).
 *
 * <p>A page read directly ends where the same page read from a point in time would end as long as the
 * index does not change in between, since one search breaks ties in shard and document order, as
 * {@code _shard_doc} does. Pages merged from several {@code terms} batches break ties in batch order, so
 * such a first page is read from a point in time when more pages follow ({@link #switchToPit}).
 *
 * <p>Not a pager itself (it only aims the searches {@link ChildrenWhereParent} merges), and not a
 * {@link io.github.esrel.doc.DocStream} for the reasons {@link ParentPages} gives.
 */
final class ChildSide {

    /** The tiebreaker that makes the child order total within a point in time. */
    static final SortOptions SHARD_DOC =
            SortOptions.of(s -> s.field(f -> f.field("_shard_doc").order(SortOrder.Asc)));

    private final String index;
    private @Nullable Time keepAlive;
    private boolean switched;
    private final List<FieldValue> after;
    private final int from;
    private @Nullable String pitId;

    private ChildSide(
            String index, @Nullable String pitId, @Nullable Time keepAlive, List<FieldValue> after, int from) {
        this.index = index;
        this.pitId = pitId;
        this.keepAlive = keepAlive;
        this.after = after == null ? List.of() : List.copyOf(after);
        this.from = from;
    }

    /** The index itself, skipping {@code from} children of the answer. */
    static ChildSide direct(String index, int from) {
        return new ChildSide(index, null, null, List.of(), from);
    }

    /** A point in time on the child index, after {@code after} (empty: from its start), skipping {@code from} children. */
    static ChildSide pit(String index, String pitId, Time keepAlive, List<FieldValue> after, int from) {
        return new ChildSide(index, pitId, keepAlive, after, from);
    }

    boolean inPit() {
        return pitId != null;
    }

    @Nullable
    String pitId() {
        return pitId;
    }

    /** Sort values to continue after (point in time only); empty from the start. */
    List<FieldValue> after() {
        return after;
    }

    /** Children of the answer this page skips before its first. */
    int from() {
        return from;
    }

    /** The child sort, made total with {@link #SHARD_DOC} in a point in time. */
    List<SortOptions> sort(JoinQuery<?, ?> q) {
        List<SortOptions> sort = SortValues.orDefault(q.childSort());
        if (!inPit()) {
            return sort;
        }
        List<SortOptions> total = new ArrayList<>(sort);
        total.add(SHARD_DOC);
        return total;
    }

    /** Points a search at the child index, or at the point in time. */
    void target(SearchRequest.Builder s) {
        if (pitId == null) {
            s.index(index);
        } else {
            s.pit(p -> p.id(pitId).keepAlive(keepAlive));
        }
    }

    /** Reads this page from a new point in time after all, from its start; {@link #switched()} then says so. */
    void switchToPit(String pitId, Time keepAlive) {
        this.pitId = pitId;
        this.keepAlive = keepAlive;
        this.switched = true;
    }

    /** Whether {@link #switchToPit} opened a point in time during this page. */
    boolean switched() {
        return switched;
    }

    /**
     * Where the page after this one starts: after the last child returned, in the point in time; or, after a
     * page read directly, at the {@code window} children returned so far, in a point in time still to open.
     *
     * @param window {@code from + childrenPerPage}: the children returned up to the end of this page
     * @param lastSort the sort values of this page's last child
     * @return the cursor, or {@code null} when there is no position to continue from
     */
    @Nullable
    JoinCursor next(int window, List<FieldValue> lastSort) {
        if (!inPit()) {
            return JoinCursor.children(null, List.of(), window);
        }
        // (Never empty when children follow; without it the next page would start over.)
        return lastSort.isEmpty() ? null : JoinCursor.children(pitId, lastSort, 0);
    }

    /** Elasticsearch may hand out a new id for the point in time with any answer: the latest must be used. */
    void update(ResponseBody<?> r) {
        if (pitId != null && r.pitId() != null) {
            pitId = r.pitId();
        }
    }
}
