package io.github.esrel.faults;

import co.elastic.clients.elasticsearch.ElasticsearchClient;
import co.elastic.clients.elasticsearch._types.Refresh;
import io.github.esrel.occ.Occ;
import io.github.esrel.occ.OccConflictException;
import io.github.esrel.occ.OccException;
import io.github.esrel.occ.OccUnknownOutcomeException;
import io.github.esrel.occ.Outcome;
import io.github.esrel.occ.Versioned;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * {@value #WRITERS} writers incrementing one counter document with {@link Occ} for as long as a soak lasts,
 * as {@link OccFailoverFaultIT} does through one failover: each increment is recorded in the writer's own
 * share ({@code by}) besides the {@code total}, so that an acknowledged increment missing from the count is
 * pinned to its writer. {@link #check} compares the acknowledged counts with the document at any time.
 *
 * <p>Recovery is timed per fault: {@link #faultInEffect} marks the moment, and the first acknowledged
 * increment whose request was sent after it gives {@link #recoveryMs}.
 */
final class OccLoad {

    static final int WRITERS = 16;

    private final Occ occ;
    private final String index;
    private final String id;
    private final int writerCount;
    private final AtomicLongArray acked;
    /** Increments whose outcome is unknown (sent, answer lost): each may be in the count at most once. */
    private final AtomicLongArray unknown;

    /** Why outcomes were unknown, each reason once. */
    private final Map<String, Boolean> unknownWhy = new java.util.concurrent.ConcurrentHashMap<>();

    private final AtomicLong gaveUp = new AtomicLong();
    private final AtomicLong errors = new AtomicLong();
    private final AtomicLong faultAt = new AtomicLong(Long.MAX_VALUE);
    private final AtomicLong firstAckAfterFault = new AtomicLong(Long.MAX_VALUE);
    private final AtomicBoolean stop = new AtomicBoolean();
    private ExecutorService pool;
    private final List<Future<?>> writers = new ArrayList<>();

    /** The counter document: the total and each writer's share. */
    public record Counter(long total, Map<String, Long> by) {
        Counter plus(String writer) {
            Map<String, Long> next = new HashMap<>(by);
            next.merge(writer, 1L, Long::sum);
            return new Counter(total + 1, next);
        }
    }

    /** What the counter holds against what was acknowledged when it was read. */
    record Check(
            long acknowledged,
            long total,
            long sumOfShares,
            long missing,
            Map<String, Long> missingByWriter,
            long primaryTerm,
            long beyondUnknown) {
        /** Acknowledged increments missing from their writer's share, plus 1 if the total is not the shares' sum. */
        long violations() {
            return missing + (total == sumOfShares ? 0 : 1);
        }
    }

    private OccLoad(ElasticsearchClient es, String index, String id, int writers, String writeLog) {
        this.occ = writeLog == null
                ? Occ.of(b -> b.client(es))
                : Occ.of(b -> b.client(es).writeLog(writeLog));
        this.index = index;
        this.id = id;
        this.writerCount = writers;
        this.acked = new AtomicLongArray(writers);
        this.unknown = new AtomicLongArray(writers);
    }

    /** Writes the counter at 0 into {@code index} (which must exist) and returns a load on it, not started. */
    static OccLoad on(ElasticsearchClient es, String index, String id) throws IOException {
        return on(es, index, id, WRITERS, null);
    }

    /**
     * As {@link #on(ElasticsearchClient, String, String)}, with {@code writers} writers and, unless null, {@link
     * Occ}'s write log in field {@code writeLog} (a write applied but answered 409 is then recognised).
     */
    static OccLoad on(ElasticsearchClient es, String index, String id, int writers, String writeLog)
            throws IOException {
        return on(es, es, index, id, writers, writeLog);
    }

    /** As the method above, the counter written through {@code setup} and the writers' calls made through {@code es}. */
    static OccLoad on(
            ElasticsearchClient setup, ElasticsearchClient es, String index, String id, int writers, String writeLog)
            throws IOException {
        setup.index(
                i -> i.index(index).id(id).document(new Counter(0, Map.of())).refresh(Refresh.True));
        return new OccLoad(es, index, id, writers, writeLog);
    }

    synchronized void start() {
        pool = Executors.newFixedThreadPool(writerCount);
        for (int w = 0; w < writerCount; w++) {
            int writer = w;
            writers.add(pool.submit(() -> write(writer)));
        }
    }

    private Void write(int writer) throws InterruptedException {
        String name = "w" + writer;
        while (!stop.get()) {
            long started = System.nanoTime();
            try {
                Outcome<Counter> o = occ.update(index, id, Counter.class, c -> c.plus(name));
                if (o.status() == Outcome.Status.UPDATED) {
                    acked.incrementAndGet(writer);
                    if (started >= faultAt.get()) {
                        firstAckAfterFault.accumulateAndGet(System.nanoTime(), Math::min);
                    }
                }
            } catch (OccConflictException e) {
                gaveUp.incrementAndGet();
            } catch (OccUnknownOutcomeException e) {
                unknown.incrementAndGet(writer);
                unknownWhy.putIfAbsent(String.valueOf(e.outcome().error()), Boolean.TRUE);
                Thread.sleep(50);
            } catch (OccException e) {
                errors.incrementAndGet();
                Thread.sleep(50);
            }
        }
        return null;
    }

    /** Marks the moment a fault took effect: {@link #recoveryMs} times from here. */
    void faultInEffect(long nanos) {
        firstAckAfterFault.set(Long.MAX_VALUE);
        faultAt.set(nanos);
    }

    /** From the last {@link #faultInEffect} to the first acknowledgement of an increment sent after it; -1 if none yet. */
    long recoveryMs() {
        long first = firstAckAfterFault.get();
        return first == Long.MAX_VALUE ? -1 : (first - faultAt.get()) / 1_000_000;
    }

    /** Increments acknowledged so far. */
    long operations() {
        long s = 0;
        for (int w = 0; w < writerCount; w++) {
            s += acked.get(w);
        }
        return s;
    }

    /** Increments whose outcome is unknown so far. */
    long unknowns() {
        long s = 0;
        for (int w = 0; w < writerCount; w++) {
            s += unknown.get(w);
        }
        return s;
    }

    long gaveUp() {
        return gaveUp.get();
    }

    /** Why outcomes were unknown, each reason once. */
    java.util.Set<String> unknownReasons() {
        return unknownWhy.keySet();
    }

    long errors() {
        return errors.get();
    }

    /**
     * Reads the counter (a real-time get) after taking the acknowledged counts: every increment acknowledged
     * before the read must be in its writer's share. {@link Check#beyondUnknown} counts, per writer, what its share
     * holds above its acknowledged plus unknown increments (counted after the read): increments applied twice, or
     * applied while reported failed; 0 is required once the writers have stopped, while they run it may count
     * increments still in flight.
     */
    Check check() {
        long[] before = new long[writerCount];
        long[] unknownBefore = new long[writerCount];
        for (int w = 0; w < writerCount; w++) {
            unknownBefore[w] = unknown.get(w);
            before[w] = acked.get(w);
        }
        Versioned<Counter> now = occ.get(index, id, Counter.class).orElseThrow();
        long missing = 0;
        long acknowledged = 0;
        long twice = 0;
        Map<String, Long> missingBy = new TreeMap<>();
        for (int w = 0; w < writerCount; w++) {
            long share = now.value().by().getOrDefault("w" + w, 0L);
            long m = before[w] - share;
            if (m > 0) {
                missing += m;
                missingBy.put("w" + w, m);
            }
            // Read after the counts: increments in flight may be in the share already, so this is judged only on
            // a quiet load (see Check#beyondUnknown).
            twice += Math.max(0, share - acked.get(w) - unknown.get(w));
            acknowledged += before[w];
        }
        long sum = now.value().by().values().stream().mapToLong(Long::longValue).sum();
        return new Check(acknowledged, now.value().total(), sum, missing, missingBy, now.primaryTerm(), twice);
    }

    /** Stops the writers and waits for them. */
    synchronized void stop() throws Exception {
        stop.set(true);
        if (pool == null) {
            return;
        }
        pool.shutdown();
        if (!pool.awaitTermination(3, TimeUnit.MINUTES)) {
            pool.shutdownNow();
            throw new AssertionError("the OCC writers did not stop within 3 minutes");
        }
        for (Future<?> f : writers) {
            f.get();
        }
    }
}
