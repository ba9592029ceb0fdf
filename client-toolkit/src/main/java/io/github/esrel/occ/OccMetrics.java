package io.github.esrel.occ;

import java.util.EnumMap;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.LongAdder;

/**
 * An {@link OccListener} that counts outcomes and conflicts and keeps a histogram of attempts per
 * operation: the contention picture an operator needs ("most updates take one attempt, 1 % take more
 * than five, 3 gave up"). Thread-safe and lock-free; read it with {@link #snapshot()}.
 *
 * <pre>{@code
 * OccMetrics metrics = new OccMetrics();
 * Occ occ = Occ.of(b -> b.client(es).listener(metrics));
 * ...
 * System.out.println(metrics.snapshot());   // operations=8000 written=8000 conflicts=23012 attempts p50=2 p99=14 max=31 ...
 * }</pre>
 */
public final class OccMetrics implements OccListener {

    /** Operations that took this many attempts or more share the histogram's last bucket. */
    public static final int HISTOGRAM_BUCKETS = 64;

    private final AtomicLongArray attempts = new AtomicLongArray(HISTOGRAM_BUCKETS + 1);
    private final Map<Outcome.Status, LongAdder> byStatus = new EnumMap<>(Outcome.Status.class);
    private final LongAdder conflicts = new LongAdder();

    /** Creates metrics with every count at zero. */
    public OccMetrics() {
        for (Outcome.Status s : Outcome.Status.values()) {
            byStatus.put(s, new LongAdder());
        }
    }

    @Override
    public void onConflict(String index, String id, int attempt) {
        conflicts.increment();
    }

    @Override
    public void onOutcome(Outcome<?> outcome) {
        Objects.requireNonNull(byStatus.get(outcome.status()), "a counter for every status")
                .increment();
        attempts.incrementAndGet(Math.min(Math.max(outcome.attempts(), 1), HISTOGRAM_BUCKETS));
    }

    /**
     * The counts so far (a consistent-enough copy: counters are read one after the other).
     *
     * @return an immutable copy, unaffected by later operations and by {@link #reset()}
     */
    public Snapshot snapshot() {
        long[] histogram = new long[HISTOGRAM_BUCKETS + 1];
        for (int i = 1; i <= HISTOGRAM_BUCKETS; i++) {
            histogram[i] = attempts.get(i);
        }
        Map<Outcome.Status, Long> statuses = new EnumMap<>(Outcome.Status.class);
        byStatus.forEach((s, n) -> statuses.put(s, n.sum()));
        return new Snapshot(histogram, statuses, conflicts.sum());
    }

    /** Sets every count back to zero. */
    public void reset() {
        for (int i = 0; i < attempts.length(); i++) {
            attempts.set(i, 0);
        }
        byStatus.values().forEach(LongAdder::reset);
        conflicts.reset();
    }

    /**
     * Counts at one moment.
     *
     * @param attemptsHistogram index {@code n} = operations that took {@code n} attempts (index 0 unused;
     *     the last index counts {@value #HISTOGRAM_BUCKETS} or more)
     * @param byStatus operations per outcome status
     * @param conflicts version conflicts met, retried or not
     */
    public record Snapshot(long[] attemptsHistogram, Map<Outcome.Status, Long> byStatus, long conflicts) {

        /**
         * Creates a snapshot; the histogram and the map are copied.
         *
         * @throws NullPointerException if {@code attemptsHistogram} or {@code byStatus} is {@code null},
         *     or the map holds a {@code null}
         */
        public Snapshot {
            attemptsHistogram = attemptsHistogram.clone();
            byStatus = Map.copyOf(byStatus);
        }

        /**
         * Operations per number of attempts.
         *
         * @return a new copy of the histogram on every call: index {@code n} = operations that took
         *     {@code n} attempts, index 0 unused, the last index {@value OccMetrics#HISTOGRAM_BUCKETS} or more
         */
        @Override
        public long[] attemptsHistogram() {
            return attemptsHistogram.clone();
        }

        /**
         * Finished operations (bulk items included).
         *
         * @return the number of operations, 0 when none was recorded
         */
        public long operations() {
            long n = 0;
            for (long c : attemptsHistogram) {
                n += c;
            }
            return n;
        }

        /**
         * Operations that ended with {@code status}.
         *
         * @param status the status to count
         * @return the number of operations with that status, 0 when none
         */
        public long count(Outcome.Status status) {
            return byStatus.getOrDefault(status, 0L);
        }

        /**
         * Operations that wrote: updated, created or deleted.
         *
         * @return the number of operations with status {@code UPDATED}, {@code CREATED} or {@code DELETED}
         */
        public long written() {
            return count(Outcome.Status.UPDATED) + count(Outcome.Status.CREATED) + count(Outcome.Status.DELETED);
        }

        /**
         * Operations that gave up on conflicts.
         *
         * @return the number of operations with status {@link Outcome.Status#CONFLICT}
         */
        public long gaveUp() {
            return count(Outcome.Status.CONFLICT);
        }

        /**
         * Attempts made in all.
         *
         * @return the sum of attempts over all operations; operations in the last bucket count as
         *     {@value OccMetrics#HISTOGRAM_BUCKETS} each
         */
        public long totalAttempts() {
            long n = 0;
            for (int i = 1; i < attemptsHistogram.length; i++) {
                n += i * attemptsHistogram[i];
            }
            return n;
        }

        /**
         * Attempts per operation, on average.
         *
         * @return {@link #totalAttempts()} divided by {@link #operations()}; 0 when nothing was recorded
         */
        public double meanAttempts() {
            long ops = operations();
            return ops == 0 ? 0 : (double) totalAttempts() / ops;
        }

        /**
         * The most attempts any operation took (capped at {@value OccMetrics#HISTOGRAM_BUCKETS}).
         *
         * @return the highest number of attempts recorded; 0 when nothing was recorded
         */
        public int maxAttempts() {
            for (int i = attemptsHistogram.length - 1; i > 0; i--) {
                if (attemptsHistogram[i] > 0) {
                    return i;
                }
            }
            return 0;
        }

        /**
         * The smallest number of attempts that at least {@code fraction} of the operations needed no
         * more than (0.5 = median, 0.99 = p99); 0 when nothing was recorded.
         *
         * @param fraction the share of operations, in {@code (0, 1]}
         * @return the number of attempts, at most {@value OccMetrics#HISTOGRAM_BUCKETS}; 0 when nothing
         *     was recorded
         * @throws IllegalArgumentException unless {@code 0 < fraction <= 1}
         */
        public int attemptsPercentile(double fraction) {
            if (!(fraction > 0 && fraction <= 1)) {
                throw new IllegalArgumentException("fraction must be in (0, 1], got " + fraction);
            }
            long ops = operations();
            long needed = (long) Math.ceil(fraction * ops);
            long seen = 0;
            for (int i = 1; i < attemptsHistogram.length; i++) {
                seen += attemptsHistogram[i];
                if (seen >= needed && seen > 0) {
                    return i;
                }
            }
            return 0;
        }

        @Override
        public String toString() {
            StringBuilder hist = new StringBuilder();
            for (int i = 1; i < attemptsHistogram.length; i++) {
                if (attemptsHistogram[i] > 0) {
                    hist.append(hist.length() == 0 ? "" : " ")
                            .append(i)
                            .append(i == HISTOGRAM_BUCKETS ? "+" : "")
                            .append(':')
                            .append(attemptsHistogram[i]);
                }
            }
            return String.format(
                    "operations=%d written=%d noop=%d not_found=%d gave_up=%d failed=%d unknown=%d conflicts=%d "
                            + "attempts mean=%.2f p50=%d p99=%d max=%d histogram={%s}",
                    operations(),
                    written(),
                    count(Outcome.Status.NOOP),
                    count(Outcome.Status.NOT_FOUND),
                    gaveUp(),
                    count(Outcome.Status.FAILED),
                    count(Outcome.Status.UNKNOWN),
                    conflicts,
                    meanAttempts(),
                    attemptsPercentile(0.5),
                    attemptsPercentile(0.99),
                    maxAttempts(),
                    hist);
        }
    }
}
