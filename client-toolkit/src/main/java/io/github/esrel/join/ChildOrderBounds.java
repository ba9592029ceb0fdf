package io.github.esrel.join;

import co.elastic.clients.elasticsearch._types.FieldSort;
import co.elastic.clients.elasticsearch._types.FieldValue;
import co.elastic.clients.elasticsearch._types.SortMode;
import co.elastic.clients.elasticsearch._types.SortOptions;
import co.elastic.clients.elasticsearch._types.SortOrder;
import co.elastic.clients.elasticsearch._types.query_dsl.Query;
import io.github.esrel.internal.ClientApi;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.LongSupplier;
import org.jspecify.annotations.Nullable;

/**
 * Where children-first's first read of children ended recently, so that the next read of the same children in the
 * same order can skip the rest of the index.
 *
 * <p>Why: children-first reads the first children in the child order ("the newest posts mentioning X"). Elasticsearch
 * finds them by sorting every child that matches the child query, and when the order runs against the order the
 * children were indexed in (the newest first, the usual case), every one of them enters the top-N queue: the cost
 * grows with the children matching, not with the few read. The last read's last child tells where its children end:
 * every child that sorts before it has a first sort key at least as large (descending) or small (ascending). So the
 * same read with the filter {@code key >= that value} (or {@code <=}) keeps every child the unfiltered read would
 * return first, in the same order (ties included: the filter keeps every child with the bound's own value, and
 * Elasticsearch breaks ties in shard and document order in both reads), and sorts only them.
 *
 * <p>When it cannot return as many as asked (children were deleted, or their key changed), what it returns is still
 * the beginning of the child order: the read is then not known to have reached the end of the children, and the next
 * page is read without the filter, from where it stopped. Only a plain field sort on a first key whose values are
 * whole numbers (numbers, dates as epoch milliseconds) is bounded: the filter must keep exactly the children whose
 * sort value passes the bound, which holds for a single-valued or multi-valued field sorted with its default mode
 * ({@code max} descending, {@code min} ascending) and missing values last, and the filter is sent with the format
 * {@code epoch_millis}, which numeric fields ignore and date fields need for a number. Anything else (scores, scripts,
 * nested, a custom {@code missing}, another mode, formatted or fractional values) is read unbounded, as before. A
 * bound is kept for {@link #MAX_AGE_NANOS}. A read it made short, or that failed, turns bounding off for that read for
 * as long: whatever the cause (children deleted, or a field whose sort values the filter reads differently, such as a
 * {@code date_nanos} field's nanoseconds), the reads of the next minute cost what they cost before, never an extra
 * round trip each.
 */
final class ChildOrderBounds {

    /** One minute, as the parent counts. */
    static final long MAX_AGE_NANOS = 60_000_000_000L;
    /** Child reads whose bounds are kept, the least recently used forgotten first. */
    static final int MAX_READS = 1_000;

    /**
     * Where a read ended.
     *
     * @param field the first sort key's field
     * @param descending whether that key sorts descending
     * @param value the first sort value of the read's last child
     * @param children how many children the read returned, all with a key at least that far
     */
    record Bound(@Nullable String field, boolean descending, long value, int children, long readAt) {

        /** Bounding turned off for the read since {@code readAt}. */
        static Bound off(long readAt) {
            return new Bound(null, false, 0, -1, readAt);
        }

        boolean isOff() {
            return field == null;
        }

        /** The read's query with the bound as a filter: scores are those of the query alone. */
        Query filter(Query childQuery) {
            Query range = ClientApi.range(
                    Objects.requireNonNull(field, "a bound that is off filters nothing"),
                    descending,
                    value,
                    "epoch_millis");
            return Query.of(q -> q.bool(b -> {
                if (childQuery != null) {
                    b.must(childQuery);
                }
                return b.filter(range);
            }));
        }
    }

    private final LongSupplier nanoClock;
    /** Guarded by itself: access-ordered. */
    private final Map<String, Bound> bounds = Lru.map(MAX_READS);

    ChildOrderBounds(LongSupplier nanoClock) {
        this.nanoClock = nanoClock;
    }

    /**
     * The bound for a read of {@code size} children, or {@code null} when there is none from the last minute, it
     * covers fewer children, or bounding is off for the read.
     *
     * @param read the child index, query and sort, as one string
     */
    @Nullable
    Bound get(String read, int size) {
        synchronized (bounds) {
            Bound b = bounds.get(read);
            if (b == null || nanoClock.getAsLong() - b.readAt() > MAX_AGE_NANOS || b.isOff() || b.children() < size) {
                return null;
            }
            return b;
        }
    }

    /**
     * Remembers where a read of the start of the child order ended: the first sort value of its last child, if the sort
     * can be bounded ({@link #boundedField}) and the value is a whole number.
     */
    void put(String read, List<SortOptions> sort, List<FieldValue> lastSort, int children) {
        String field = boundedField(sort);
        if (field == null || lastSort.isEmpty() || !lastSort.get(0).isLong() || children <= 0) {
            return;
        }
        boolean descending = sort.get(0).field().order() == SortOrder.Desc;
        long now = nanoClock.getAsLong();
        synchronized (bounds) {
            Bound last = bounds.get(read);
            if (last != null && last.isOff() && now - last.readAt() <= MAX_AGE_NANOS) {
                return;
            }
            bounds.put(read, new Bound(field, descending, lastSort.get(0).longValue(), children, now));
        }
    }

    /** Turns bounding off for a read for {@link #MAX_AGE_NANOS}: its bound made it short, or failed. */
    void turnOff(String read) {
        synchronized (bounds) {
            bounds.put(read, Bound.off(nanoClock.getAsLong()));
        }
    }

    /**
     * The field of the sort's first key when a range filter on it keeps exactly the children that sort up to a value:
     * a plain field sort (not {@code _score}, {@code _doc} or another meta field) with the field's default mode for the
     * order, missing values last, and no nested path, numeric type or format. {@code null} otherwise.
     */
    static @Nullable String boundedField(List<SortOptions> sort) {
        if (sort == null || sort.isEmpty() || !sort.get(0).isField()) {
            return null;
        }
        FieldSort f = sort.get(0).field();
        boolean descending = f.order() == SortOrder.Desc;
        SortMode defaultMode = descending ? SortMode.Max : SortMode.Min;
        if (f.field().startsWith("_")
                || (f.mode() != null && f.mode() != defaultMode)
                || (f.missing() != null
                        && !(f.missing().isString()
                                && "_last".equals(f.missing().stringValue())))
                || f.nested() != null
                || f.numericType() != null
                || f.format() != null) {
            return null;
        }
        return f.field();
    }
}
