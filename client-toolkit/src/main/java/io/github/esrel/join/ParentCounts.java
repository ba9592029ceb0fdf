package io.github.esrel.join;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;

/**
 * How many documents each parent index holds, for {@link JoinQuery.Plan#AUTO}'s estimate of the share
 * of matching parents. Cached for a while: the count only weighs the choice of a plan (both plans
 * give the same answer), and counting the index in every join would cost a search each time. A count
 * older than {@link #MAX_AGE_NANOS} is read again with the next join's first round trip.
 */
final class ParentCounts {

    /** One minute. */
    static final long MAX_AGE_NANOS = 60_000_000_000L;

    private record Count(long value, long readAt) {}

    private final Map<String, Count> counts = new ConcurrentHashMap<>();
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
}
