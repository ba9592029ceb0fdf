package io.github.esrel.join;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;

/**
 * How many documents each parent index holds, for {@link JoinQuery.Plan#AUTO}'s estimate of the share
 * of matching parents, and how many parents recent parent conditions matched, for the size of its
 * preview. Cached for a while: a count only weighs the choice of a plan and of a preview (every plan
 * gives the same answer), and counting the index in every join would cost a search each time. A count
 * older than {@link #MAX_AGE_NANOS} is read again with the next join's first round trip. At most
 * {@link #MAX_CONDITIONS} conditions are remembered, the least recently used forgotten first.
 */
final class ParentCounts {

    /** One minute. */
    static final long MAX_AGE_NANOS = 60_000_000_000L;
    /** Parent conditions whose match counts are kept. */
    static final int MAX_CONDITIONS = 1_000;

    private record Count(long value, long readAt) {}

    private final Map<String, Count> counts = new ConcurrentHashMap<>();
    /** Guarded by itself: an access-ordered map, so that the least recently used condition goes first. */
    private final Map<String, Count> matches = new LinkedHashMap<>(16, 0.75f, true) {
        private static final long serialVersionUID = 1L;

        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Count> eldest) {
            return size() > MAX_CONDITIONS;
        }
    };

    private final LongSupplier nanoClock;

    ParentCounts(LongSupplier nanoClock) {
        this.nanoClock = nanoClock;
    }

    /** The cached count, or -1 when there is none or it is too old. */
    long get(String index) {
        Count c = counts.get(index);
        return c == null || nanoClock.getAsLong() - c.readAt() > MAX_AGE_NANOS ? -1 : c.value();
    }

    void put(String index, long count) {
        if (count >= 0) {
            counts.put(index, new Count(count, nanoClock.getAsLong()));
        }
    }

    /**
     * How many parents a condition matched when last seen, or -1 when it was not seen in the last
     * minute.
     *
     * @param condition the parent index and the parent query, as one string
     */
    long matched(String condition) {
        synchronized (matches) {
            Count c = matches.get(condition);
            return c == null || nanoClock.getAsLong() - c.readAt() > MAX_AGE_NANOS ? -1 : c.value();
        }
    }

    void putMatched(String condition, long count) {
        if (count >= 0) {
            synchronized (matches) {
                matches.put(condition, new Count(count, nanoClock.getAsLong()));
            }
        }
    }
}
