package io.github.esrel.benchmarks;

import co.elastic.clients.elasticsearch.ElasticsearchClient;
import co.elastic.clients.elasticsearch.core.BulkResponse;
import co.elastic.clients.elasticsearch.core.bulk.BulkOperation;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.management.GarbageCollectionNotificationInfo;
import io.github.esrel.denorm.PropagationResult;
import io.github.esrel.denorm.Propagator;
import io.github.esrel.denorm.Relation;
import io.github.esrel.occ.Occ;
import java.io.PrintStream;
import java.io.StringReader;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.lang.management.MemoryUsage;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import javax.management.NotificationEmitter;
import javax.management.NotificationListener;
import javax.management.openmbean.CompositeData;

/**
 * Denormalized propagation (seed 000 §1.2/§1.4): a user with 100,000 posts renames himself and every
 * post's {@code user.name} copy is rewritten. Compared, on the same node and index, in one run:
 * <ul>
 *   <li>raw {@code _bulk} indexing of the same 100,000 documents (the client already has them: no
 *       reads, no conditions), the same batch size, one request at a time;</li>
 *   <li>esrel's propagation: stream the posts with a point in time, rewrite them with conditional bulk
 *       requests, checkpoints, catch-up pass (goal: at least 0.8x the raw bulk's throughput);</li>
 *   <li>both again with two requests in flight ({@code Propagator.Builder.bulksInFlight(2)}), to
 *       compare like with like when the cluster has a spare write thread;</li>
 *   <li>per-document updates (goal: propagation at least 5x faster): a partial-document
 *       {@code _update} per post, and a safe {@code Occ.update} (get + conditional index) per post, both
 *       measured on a subset of {@value #PER_DOC_SUBSET} posts and extrapolated to 100,000.</li>
 * </ul>
 * The posts index sets {@code refresh_interval: 1s} explicitly: left unset, a shard that has seen no
 * search for 30 s skips its periodic refreshes ("search idle"), which speeds up the raw bulk (nobody
 * searches during it) but not the propagation (whose own point-in-time searches keep the shard
 * active). A real posts index is searched all the time, so refreshing in both runs is the fair case.
 *
 * <p>Peak heap of this JVM during the propagation: sampled used heap, and the live heap after each GC
 * (GC notifications), for 10,000 and for 100,000 children: constant memory means the two match.
 */
final class PropagationBenchmark {

    private static final String USERS = "bench-prop-users";
    private static final String POSTS = "bench-prop-posts";
    private static final int CHILDREN = 100_000;
    private static final int SMALL = 10_000;
    private static final int BATCH = 1000;
    private static final int PER_DOC_SUBSET = 1000;

    private final ElasticsearchClient es;
    private final PrintStream out;

    private final BenchRecord record;

    PropagationBenchmark(ElasticsearchClient es, PrintStream out, BenchRecord record) {
        this.es = es;
        this.out = out;
        this.record = record;
    }

    void run() throws Exception {
        setUp();
        long t0 = System.nanoTime();
        long loadNanos = rawBulk("1", "John Smith", "p", CHILDREN, 0);
        rawBulk("2", "Mary Jones", "s", SMALL, 0);
        es.indices().refresh(r -> r.index(POSTS));
        out.printf(
                "%nDenormalized propagation to %,d children (one user's posts, 1 shard, batches of %d), loaded in %.1f s%n",
                CHILDREN, BATCH, (System.nanoTime() - t0) / 1e9);

        Relation author = Relation.of(r -> r.name("post-author")
                .parentIndex(USERS)
                .childIndex(POSTS)
                .parentIdField("user.id")
                .copy("name", "user.name"));
        Phases phases = new Phases();
        Propagator propagator = Propagator.of(
                p -> p.client(es).relation(author).batchSize(BATCH).listener(phases));

        // Warm-up: the small user's posts, renamed twice.
        rename("2", "Mary Warm");
        propagator.propagate("2");

        List<Long> raw = new ArrayList<>();
        List<Long> prop = new ArrayList<>();
        List<PropagationResult> results = new ArrayList<>();
        Heap heap100k = null;
        for (int round = 1; round <= 2; round++) {
            raw.add(rawBulk("1", "John Raw " + round, "p", CHILDREN, round));
            rename("1", "John Renamed " + round);
            Heap heap = new Heap();
            long start = System.nanoTime();
            phases.reset(start);
            PropagationResult r = propagator.propagate("1");
            phases.print(out, System.nanoTime());
            prop.add(System.nanoTime() - start);
            heap.stop();
            results.add(r);
            if (r.counts().written() != CHILDREN || !r.complete()) {
                throw new IllegalStateException("propagation did not rewrite every child: " + r);
            }
            if (heap100k == null || heap.peakAfterGc > heap100k.peakAfterGc) {
                heap100k = heap;
            }
        }
        rename("2", "Mary Small");
        Heap heap10k = new Heap();
        PropagationResult small = propagator.propagate("2");
        heap10k.stop();

        long streamNanos = streamOnly();
        long raw2Nanos = rawBulkConcurrent("1", "John Raw 2x", "p", CHILDREN);
        Propagator twoInFlight = Propagator.of(
                p -> p.client(es).relation(author).batchSize(BATCH).bulksInFlight(2));
        rename("1", "John Renamed 2x");
        long prop2Start = System.nanoTime();
        PropagationResult r2 = twoInFlight.propagate("1");
        long prop2Nanos = System.nanoTime() - prop2Start;
        if (r2.counts().written() != CHILDREN || !r2.complete()) {
            throw new IllegalStateException("propagation with 2 bulks in flight did not rewrite every child: " + r2);
        }
        long updateNanos = perDocPartialUpdate();
        long occNanos = perDocOcc();
        long rawBest = raw.stream().mapToLong(Long::longValue).min().orElseThrow();
        long propBest = prop.stream().mapToLong(Long::longValue).min().orElseThrow();
        double rawRate = CHILDREN / (rawBest / 1e9);
        double propRate = CHILDREN / (propBest / 1e9);
        double updateRate = PER_DOC_SUBSET / (updateNanos / 1e9);
        double occRate = PER_DOC_SUBSET / (occNanos / 1e9);

        out.printf(
                "  %-78s %10s %10s %10s%n",
                "what (100,000 documents; best of 2 runs where repeated)", "docs/s", "seconds", "ratio");
        out.printf(
                "  %-78s %,10.0f %10.1f %10s%n",
                "initial load: raw _bulk of new documents", CHILDREN / (loadNanos / 1e9), loadNanos / 1e9, "");
        out.printf(
                "  %-78s %,10.0f %10.1f %10s%n",
                "raw _bulk re-indexing the same documents (baseline; runs: " + secs(raw) + ")",
                rawRate,
                rawBest / 1e9,
                "1.00x");
        out.printf(
                "  %-78s %,10.0f %10.1f %9.2fx%n",
                "esrel propagation: PIT stream + conditional _bulk (runs: " + secs(prop) + ")",
                propRate,
                propBest / 1e9,
                propRate / rawRate);
        out.printf(
                "  %-78s %,10.0f %10.1f %9.2fx%n",
                "for reference: reading the same documents only (PIT stream, prefetch)",
                CHILDREN / (streamNanos / 1e9),
                streamNanos / 1e9,
                (CHILDREN / (streamNanos / 1e9)) / rawRate);
        out.printf(
                "  %-78s %,10.0f %10.1f %9.2fx%n",
                "for reference: raw _bulk with 2 requests in flight",
                CHILDREN / (raw2Nanos / 1e9),
                raw2Nanos / 1e9,
                (CHILDREN / (raw2Nanos / 1e9)) / rawRate);
        out.printf(
                "  %-78s %,10.0f %10.1f %9.2fx%n",
                "esrel propagation with bulksInFlight(2)",
                CHILDREN / (prop2Nanos / 1e9),
                prop2Nanos / 1e9,
                (CHILDREN / (prop2Nanos / 1e9)) / rawRate);
        out.printf(
                "  %-78s %,10.0f %10.1f %9.2fx%n",
                "per-document _update (partial doc), " + PER_DOC_SUBSET + " docs, extrapolated",
                updateRate,
                CHILDREN / updateRate,
                updateRate / rawRate);
        out.printf(
                "  %-78s %,10.0f %10.1f %9.2fx%n",
                "per-document Occ.update (get + conditional index), " + PER_DOC_SUBSET + " docs, extrapolated",
                occRate,
                CHILDREN / occRate,
                occRate / rawRate);
        out.printf(
                "  propagation vs raw _bulk: %.2fx the throughput (goal >= 0.8x); both with 2 requests in flight: %.2fx%n",
                propRate / rawRate, raw2Nanos / (double) prop2Nanos);
        out.printf(
                "  propagation vs per-document _update: %.1fx faster (goal >= 5x); vs per-document Occ.update: %.1fx faster%n",
                propRate / updateRate, propRate / occRate);
        out.printf("  propagation runs: %s%n", results);
        double spread = Math.max(spread(raw), spread(prop));
        figure("raw _bulk re-indexing the same documents (baseline)", rawRate, Double.NaN, spread(raw));
        figure("esrel propagation, default settings", propRate, propRate / rawRate, spread);
        figure(
                "raw _bulk with 2 requests in flight",
                CHILDREN / (raw2Nanos / 1e9),
                raw2Nanos > 0 ? rawBest / (double) raw2Nanos : Double.NaN,
                Double.NaN);
        figure(
                "esrel propagation with bulksInFlight(2)",
                CHILDREN / (prop2Nanos / 1e9),
                rawBest / (double) prop2Nanos,
                Double.NaN);
        figure(
                "esrel propagation with bulksInFlight(2) vs raw _bulk with 2 in flight (like for like)",
                CHILDREN / (prop2Nanos / 1e9),
                raw2Nanos / (double) prop2Nanos,
                Double.NaN);
        figure("per-document Occ.update, extrapolated", occRate, occRate / rawRate, Double.NaN);
        out.printf(
                "  peak heap of this JVM (-Xmx%d MB) during propagation:%n",
                Runtime.getRuntime().maxMemory() / (1024 * 1024));
        heap10k.print(out, SMALL);
        heap100k.print(out, CHILDREN);
        out.printf("    small job: %s%n", small);
    }

    private void setUp() throws Exception {
        for (String index : List.of(USERS, POSTS, "esrel-propagation")) {
            if (es.indices().exists(e -> e.index(index)).value()) {
                es.indices().delete(d -> d.index(index));
            }
        }
        es.indices()
                .create(c -> c.index(USERS).settings(s -> s.numberOfShards("1").numberOfReplicas("0")));
        es.indices().create(c -> c.index(POSTS).withJson(new StringReader("""
            {"settings": {"number_of_shards": 1, "number_of_replicas": 0, "refresh_interval": "1s"},
             "mappings": {"properties": {"title": {"type": "text"}, "body": {"type": "text"}, "date": {"type": "long"},
               "tags": {"type": "keyword"}, "user": {"properties": {"id": {"type": "keyword"}, "name": {"type": "keyword"}}}}}}""")));
        rename("1", "John Smith");
        rename("2", "Mary Jones");
    }

    private void rename(String id, String name) throws Exception {
        es.index(i -> i.index(USERS).id(id).document(Map.of("name", name, "email", id + "@example.com")));
    }

    private static ObjectNode post(String userId, String name, int i) {
        ObjectNode p = JsonNodeFactory.instance
                .objectNode()
                .put("title", "Post " + i + ": relationships in Elasticsearch")
                .put(
                        "body",
                        "Elasticsearch has no joins; copy what you query on into the documents you search, and keep the"
                                + " copies up to date when the original changes. Post number " + i + ".")
                .put("date", 1_700_000_000_000L + i * 1000L);
        p.putArray("tags").add("denormalization").add("concurrency");
        p.putObject("user").put("id", userId).put("name", name);
        return p;
    }

    /** Indexes the documents in sequential {@code _bulk} requests of {@value #BATCH}; returns the nanoseconds. */
    private long rawBulk(String userId, String name, String prefix, int n, int round) throws Exception {
        long start = System.nanoTime();
        for (int from = 0; from < n; from += BATCH) {
            List<BulkOperation> ops = new ArrayList<>(BATCH);
            for (int i = from; i < Math.min(n, from + BATCH); i++) {
                ObjectNode doc = post(userId, name, i);
                String id = prefix + i;
                ops.add(BulkOperation.of(o -> o.index(x -> x.index(POSTS).id(id).document(doc))));
            }
            BulkResponse r = es.bulk(b -> b.operations(ops));
            if (r.errors()) {
                throw new IllegalStateException("raw bulk failed: "
                        + r.items().stream()
                                .filter(x -> x.error() != null)
                                .findFirst()
                                .orElseThrow()
                                .error());
            }
        }
        return System.nanoTime() - start;
    }

    /** Streams all of user 1's posts with a point in time, as the propagation does, without writing. */
    private long streamOnly() throws Exception {
        long start = System.nanoTime();
        long seen = 0;
        try (io.github.esrel.doc.DocStream s = io.github.esrel.doc.DocStream.of(b -> b.client(es)
                .index(POSTS)
                .query(q -> q.term(t -> t.field("user.id").value("1")))
                .pageSize(BATCH)
                .prefetch(true))) {
            for (var page = s.next(); !page.isEmpty(); page = s.next()) {
                seen += page.size();
            }
        }
        if (seen != CHILDREN) {
            throw new IllegalStateException("streamed " + seen + " posts");
        }
        return System.nanoTime() - start;
    }

    /** {@link #rawBulk} with two requests in flight (two threads taking alternate batches). */
    private long rawBulkConcurrent(String userId, String name, String prefix, int n) throws Exception {
        long start = System.nanoTime();
        java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(2);
        try {
            List<java.util.concurrent.Future<?>> fs = new ArrayList<>();
            for (int t = 0; t < 2; t++) {
                int first = t;
                fs.add(pool.submit(() -> {
                    for (int from = first * BATCH; from < n; from += 2 * BATCH) {
                        List<BulkOperation> ops = new ArrayList<>(BATCH);
                        for (int i = from; i < Math.min(n, from + BATCH); i++) {
                            ObjectNode doc = post(userId, name, i);
                            String id = prefix + i;
                            ops.add(BulkOperation.of(
                                    o -> o.index(x -> x.index(POSTS).id(id).document(doc))));
                        }
                        if (es.bulk(b -> b.operations(ops)).errors()) {
                            throw new IllegalStateException("raw bulk failed");
                        }
                    }
                    return null;
                }));
            }
            for (var f : fs) {
                f.get();
            }
        } finally {
            pool.shutdown();
        }
        return System.nanoTime() - start;
    }

    /** One partial-document {@code _update} per child (what a loop over the children would do). */
    private long perDocPartialUpdate() throws Exception {
        long start = System.nanoTime();
        for (int i = 0; i < PER_DOC_SUBSET; i++) {
            String id = "p" + i;
            es.update(u -> u.index(POSTS).id(id).doc(Map.of("user", Map.of("name", "John Updated"))), ObjectNode.class);
        }
        return System.nanoTime() - start;
    }

    /** One optimistic read-modify-write per child: get, then index with if_seq_no/if_primary_term. */
    private long perDocOcc() throws Exception {
        Occ occ = Occ.of(b -> b.client(es));
        long start = System.nanoTime();
        for (int i = 0; i < PER_DOC_SUBSET; i++) {
            occ.update(POSTS, "p" + i, ObjectNode.class, p -> {
                        ObjectNode c = p.deepCopy();
                        ((ObjectNode) c.get("user")).put("name", "John Occ");
                        return c;
                    })
                    .orThrow();
        }
        return System.nanoTime() - start;
    }

    private static String secs(List<Long> nanos) {
        StringBuilder sb = new StringBuilder();
        for (long n : nanos) {
            sb.append(sb.length() == 0 ? "" : ", ").append(String.format("%.1f s", n / 1e9));
        }
        return sb.toString();
    }

    private static double mb(long bytes) {
        return bytes / (1024.0 * 1024.0);
    }

    /** Where a propagation's time goes: before its first write, its writes, after its last write. */
    static final class Phases implements io.github.esrel.denorm.PropagationListener {
        private volatile long start;
        private volatile long firstBulk;
        private volatile long lastProgress;
        private volatile long lastPassOneProgress;
        private final AtomicLong bulkNanos = new AtomicLong();
        private volatile long bulkStart;

        void reset(long now) {
            start = now;
            firstBulk = 0;
            lastProgress = 0;
            bulkNanos.set(0);
        }

        @Override
        public void beforeBulk(String jobId, int pass, int documents) {
            long now = System.nanoTime();
            if (firstBulk == 0) {
                firstBulk = now;
            }
            bulkStart = now;
        }

        @Override
        public void onProgress(io.github.esrel.denorm.Progress p) {
            long now = System.nanoTime();
            if (bulkStart != 0) {
                bulkNanos.addAndGet(now - bulkStart);
                bulkStart = 0;
            }
            lastProgress = now;
            if (p.pass() == 1) {
                lastPassOneProgress = now;
            }
        }

        void print(PrintStream out, long end) {
            out.printf(
                    "    propagation phases: %.1f s before the first write (checkpoint, refresh, point in time, first page),"
                            + " %.1f s writing (of which %.1f s inside bulk + decide of each page), %.1f s after the last page (refresh,"
                            + " catch-up pass, final checkpoint)%n",
                    (firstBulk - start) / 1e9,
                    (lastPassOneProgress - firstBulk) / 1e9,
                    bulkNanos.get() / 1e9,
                    (end - lastPassOneProgress) / 1e9);
        }
    }

    /** Watches this JVM's heap from construction to {@link #stop()}: sampled used heap and live heap after each GC. */
    static final class Heap {
        final long before;
        volatile long peakSampled;
        volatile long peakAfterGc;
        volatile int gcs;
        private final AtomicLong maxSampled = new AtomicLong();
        private final AtomicLong maxAfterGc = new AtomicLong();
        private final Thread sampler;
        private final List<Runnable> unsubscribe = new ArrayList<>();
        private volatile boolean running = true;

        Heap() {
            MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
            System.gc();
            before = memory.getHeapMemoryUsage().getUsed();
            java.util.Set<String> heapPools = new java.util.HashSet<>();
            for (MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) {
                if (pool.getType() == MemoryType.HEAP) {
                    heapPools.add(pool.getName());
                }
            }
            for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
                if (gc instanceof NotificationEmitter emitter) {
                    NotificationListener l = (n, h) -> {
                        if (!GarbageCollectionNotificationInfo.GARBAGE_COLLECTION_NOTIFICATION.equals(n.getType())) {
                            return;
                        }
                        GarbageCollectionNotificationInfo info =
                                GarbageCollectionNotificationInfo.from((CompositeData) n.getUserData());
                        long used = 0;
                        for (Map.Entry<String, MemoryUsage> u :
                                info.getGcInfo().getMemoryUsageAfterGc().entrySet()) {
                            if (heapPools.contains(u.getKey())) {
                                used += u.getValue().getUsed();
                            }
                        }
                        long after = used;
                        maxAfterGc.accumulateAndGet(after, Math::max);
                        gcs++;
                    };
                    emitter.addNotificationListener(l, null, null);
                    unsubscribe.add(() -> {
                        try {
                            emitter.removeNotificationListener(l);
                        } catch (Exception ignored) {
                            // the bean stays; only the listener goes
                        }
                    });
                }
            }
            sampler = new Thread(
                    () -> {
                        while (running) {
                            maxSampled.accumulateAndGet(
                                    memory.getHeapMemoryUsage().getUsed(), Math::max);
                            try {
                                Thread.sleep(5);
                            } catch (InterruptedException e) {
                                return;
                            }
                        }
                    },
                    "heap-sampler");
            sampler.setDaemon(true);
            sampler.start();
        }

        void print(PrintStream out, int children) {
            out.printf(
                    "    %,7d children: sampled used heap peaked at %6.1f MB (%.1f MB after a full GC before the run); live heap"
                            + " after GC peaked at %s over %d GCs%n",
                    children,
                    mb(peakSampled),
                    mb(before),
                    gcs == 0 ? "(no GC during the run)" : String.format("%.1f MB", mb(peakAfterGc)),
                    gcs);
        }

        void stop() throws InterruptedException {
            running = false;
            sampler.join();
            unsubscribe.forEach(Runnable::run);
            peakSampled = maxSampled.get();
            peakAfterGc = maxAfterGc.get();
        }
    }

    private void figure(String what, double docsPerSecond, double ratio, double spread) {
        record.add("propagation", what, docsPerSecond, "docs/s", ratio, BenchRecord.Better.HIGHER, spread);
    }

    private static double spread(List<Long> nanos) {
        return Timer.Sample.ofRuns(nanos.stream().mapToDouble(Long::doubleValue).toArray());
    }
}
