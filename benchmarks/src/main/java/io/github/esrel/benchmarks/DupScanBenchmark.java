package io.github.esrel.benchmarks;

import co.elastic.clients.elasticsearch.ElasticsearchClient;
import co.elastic.clients.elasticsearch.core.BulkResponse;
import co.elastic.clients.elasticsearch.core.bulk.BulkOperation;
import co.elastic.clients.elasticsearch.core.search.Hit;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.github.esrel.doc.DocRef;
import io.github.esrel.doc.DocStream;
import io.github.esrel.routing.DuplicateIdReport;
import io.github.esrel.routing.DuplicateIdScanner;
import io.github.esrel.routing.DuplicateScanListener;
import io.github.esrel.routing.RoutingCalculator;
import io.github.esrel.routing.RoutingClient;
import io.github.esrel.routing.ScanProgress;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;

/**
 * The duplicate-id scan (seed 002) over 100,000 and 1,000,000 documents (stray copies included), 4 shards merged
 * to one segment each, 50 ids written a second time under a routing value that leads to another shard. Compared
 * in one run, on the same index:
 * <ul>
 *   <li>baseline: a plain point-in-time stream of the same documents ({@code DocStream}, {@code _source: false},
 *       the scan's page size), one stream, no dedup work;</li>
 *   <li>for reference: the same plain stream sliced 4 ways, one thread per slice (what the scan reads with);</li>
 *   <li>the scan with its defaults (every id fits the 1,000,000-id budget: counted in memory);</li>
 *   <li>the scan with a tenth of the documents as budget, so that every id goes through spill files on disk.</li>
 * </ul>
 * Each figure is the best of {@value #ROUNDS} rounds after one warm-up, the four runs taking turns in each round.
 * The heap figure is the scan's live heap: a separate, untimed run whose listener forces a GC at a few points of
 * each phase and records the used heap after it (MemoryMXBean), minus the used heap after a GC just before the
 * scan.
 */
final class DupScanBenchmark {

    private static final String INDEX = "bench-dupscan";
    private static final int SHARDS = 4;
    private static final int DUPLICATES = 50;
    private static final int BATCH = 5000;
    private static final int ROUNDS = 5;

    private final ElasticsearchClient es;
    private final PrintStream out;

    private final BenchRecord record;

    DupScanBenchmark(ElasticsearchClient es, PrintStream out, BenchRecord record) {
        this.es = es;
        this.out = out;
        this.record = record;
    }

    void run() throws Exception {
        out.printf(
                "%nDuplicate-id scan, %d shards, %d ids duplicated under a second routing value, pages of %,d (best of %d"
                        + " interleaved runs after a warm-up; live heap = used heap of this JVM after forced GCs during a separate run of"
                        + " the scan, above the used heap after a GC just before it)%n",
                SHARDS, DUPLICATES, DuplicateIdScanner.DEFAULT_PAGE_SIZE, ROUNDS);
        out.printf("  %-66s %12s %9s %8s %10s%n", "what", "docs/second", "seconds", "ratio", "live heap");
        for (int docs : new int[] {100_000, 1_000_000}) {
            measure(docs);
        }
        out.println("  ratio = throughput / baseline throughput (higher is faster)");
        es.indices().delete(d -> d.index(INDEX));
    }

    private void measure(int total) throws Exception {
        long t0 = System.nanoTime();
        load(total - DUPLICATES);
        out.printf(
                "  %,d documents (%,d + %d stray copies), loaded and merged to one segment per shard in %.1f s%n",
                total, total - DUPLICATES, DUPLICATES, (System.nanoTime() - t0) / 1e9);
        Path spill = Files.createTempDirectory("esrel-bench-dupscan");
        int budget = total / 10;
        try {
            Phases memoryPhases = new Phases();
            Phases diskPhases = new Phases();
            DuplicateIdScanner inMemory =
                    DuplicateIdScanner.of(b -> b.client(es).listener(memoryPhases));
            DuplicateIdScanner spilled = DuplicateIdScanner.of(b ->
                    b.client(es).maxIdsInMemory(budget).spillDirectory(spill).listener(diskPhases));
            DuplicateIdReport[] last = new DuplicateIdReport[2];
            long[] best = bestOf(
                    () -> check(plainStream(1), total),
                    () -> check(plainStream(SHARDS), total),
                    () -> last[0] = check(memoryPhases.begin(inMemory).scan(INDEX), total),
                    () -> last[1] = check(diskPhases.begin(spilled).scan(INDEX), total));
            long heapMemory = liveHeap(
                    total, probe -> DuplicateIdScanner.of(b -> b.client(es).listener(probe)));
            long heapDisk = liveHeap(
                    total,
                    probe -> DuplicateIdScanner.of(b -> b.client(es)
                            .maxIdsInMemory(budget)
                            .spillDirectory(spill)
                            .listener(probe)));

            row(
                    "plain PIT stream, 1 stream (baseline)",
                    "plain PIT stream, 1 stream, _source: false (baseline)",
                    total,
                    best[0],
                    best[0],
                    -1);
            row(
                    "plain PIT stream, slices, no dedup",
                    "plain PIT stream, " + SHARDS + " slices on " + SHARDS + " threads, no dedup",
                    total,
                    best[1],
                    best[0],
                    -1);
            row(
                    "DuplicateIdScanner, defaults, in memory",
                    "DuplicateIdScanner, defaults: " + SHARDS + " slices, " + last[0].partitions() + " table in memory",
                    total,
                    best[2],
                    best[0],
                    heapMemory);
            out.printf("      phases of the last run: %s%n", memoryPhases);
            row(
                    "DuplicateIdScanner, spilled to disk (budget a tenth of the ids)",
                    String.format(
                            "DuplicateIdScanner, maxIdsInMemory %,d: %d spill files, %.1f MB",
                            budget, last[1].partitions(), last[1].spilledBytes() / 1048576.0),
                    total,
                    best[3],
                    best[0],
                    heapDisk);
            out.printf("      phases of the last run: %s%n", diskPhases);
        } finally {
            try (var files = Files.list(spill)) {
                if (files.findAny().isPresent()) {
                    throw new IllegalStateException("spill files left behind in " + spill);
                }
            }
            Files.delete(spill);
        }
    }

    /** A row; {@code figure} names it in the record ({@code what}, as printed, has details that change by run). */
    private void row(String figure, String what, long docs, long nanos, long baseline, long heapBytes) {
        String of = String.format(" (%,d docs)", docs);
        record.add(
                "dupscan",
                figure + of,
                docs / (nanos / 1e9),
                "docs/s",
                nanos == baseline ? Double.NaN : (double) baseline / nanos,
                BenchRecord.Better.HIGHER,
                Double.NaN);
        if (heapBytes >= 0) {
            record.add(
                    "dupscan",
                    figure + ": live heap" + of,
                    heapBytes / 1048576.0,
                    "MB",
                    Double.NaN,
                    BenchRecord.Better.LOWER,
                    Double.NaN);
        }
        out.printf(
                "  %-66s %,12.0f %9.2f %7.2fx %10s%n",
                what,
                docs / (nanos / 1e9),
                nanos / 1e9,
                (double) baseline / nanos,
                heapBytes < 0 ? "" : String.format("%.1f MB", heapBytes / 1048576.0));
    }

    private interface Run {
        void run() throws Exception;
    }

    /**
     * The best wall time of each run: one warm-up each, then {@value #ROUNDS} rounds of all of them in turn, so that
     * a noisy spell of a shared machine does not fall on one of them only.
     */
    private static long[] bestOf(Run... runs) throws Exception {
        for (Run run : runs) {
            run.run();
        }
        long[] best = new long[runs.length];
        java.util.Arrays.fill(best, Long.MAX_VALUE);
        for (int round = 0; round < ROUNDS; round++) {
            for (int i = 0; i < runs.length; i++) {
                long start = System.nanoTime();
                runs[i].run();
                best[i] = Math.min(best[i], System.nanoTime() - start);
            }
        }
        return best;
    }

    /** Where the time of a scan goes: opening (point in time, count), reading, counting, reading back. */
    private static final class Phases implements DuplicateScanListener {
        private final Map<ScanProgress.Phase, long[]> spans = new java.util.EnumMap<>(ScanProgress.Phase.class);
        private long start;
        private long end;

        /** Called just before the scan: its clock starts. */
        synchronized DuplicateIdScanner begin(DuplicateIdScanner scanner) {
            spans.clear();
            start = System.nanoTime();
            return scanner;
        }

        @Override
        public synchronized void onProgress(ScanProgress p) {
            long now = System.nanoTime();
            spans.computeIfAbsent(p.phase(), x -> new long[] {now, now})[1] = now;
        }

        @Override
        public synchronized void onFinish(DuplicateIdReport report) {
            end = System.nanoTime();
        }

        @Override
        public synchronized String toString() {
            long read = spans.get(ScanProgress.Phase.READ)[0];
            long count = spans.get(ScanProgress.Phase.READ)[1];
            long verify = spans.get(ScanProgress.Phase.COUNT)[1];
            return String.format(
                    "open (point in time, document count) %.2f s, read %.2f s, count %.2f s, read back and"
                            + " close %.2f s",
                    (read - start) / 1e9, (count - read) / 1e9, (verify - count) / 1e9, (end - verify) / 1e9);
        }
    }

    private static DuplicateIdReport check(DuplicateIdReport r, long total) {
        if (r.documents() != total
                || r.duplicatedIds() != DUPLICATES
                || r.duplicates().size() != DUPLICATES) {
            throw new IllegalStateException("the scan did not find exactly the " + DUPLICATES + " duplicates: " + r);
        }
        return r;
    }

    private static void check(long streamed, long total) {
        if (streamed != total) {
            throw new IllegalStateException("streamed " + streamed + " of " + total + " documents");
        }
    }

    /** Streams every document's id with point in time + search_after, sliced over {@code slices} threads; no dedup. */
    private long plainStream(int slices) throws Exception {
        String pit = es.openPointInTime(o -> o.index(INDEX).keepAlive(t -> t.time("5m")))
                .id();
        ExecutorService pool = Executors.newFixedThreadPool(slices);
        AtomicLong seen = new AtomicLong();
        try {
            List<Future<?>> done = new ArrayList<>();
            for (int s = 0; s < slices; s++) {
                int slice = s;
                done.add(pool.submit(() -> {
                    try (DocStream stream = DocStream.of(b -> b.client(es)
                            .index(INDEX)
                            .pointInTime(pit)
                            .slice(slice, slices)
                            .fetchSource(false)
                            .pageSize(DuplicateIdScanner.DEFAULT_PAGE_SIZE))) {
                        long ids = 0;
                        for (List<Hit<ObjectNode>> page = stream.next(); !page.isEmpty(); page = stream.next()) {
                            for (Hit<ObjectNode> h : page) {
                                ids += h.id().length(); // touch every id, as the scan does
                            }
                            seen.addAndGet(page.size());
                        }
                        return ids;
                    }
                }));
            }
            for (Future<?> f : done) {
                f.get();
            }
        } finally {
            pool.shutdown();
            es.closePointInTime(c -> c.id(pit));
        }
        return seen.get();
    }

    /** The scan's live heap: the highest used heap after a forced GC during the scan, above the heap before it. */
    private long liveHeap(long total, Function<DuplicateScanListener, DuplicateIdScanner> scanner) {
        GcProbe probe = new GcProbe(total);
        DuplicateIdScanner s = scanner.apply(probe);
        MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
        System.gc();
        long before = memory.getHeapMemoryUsage().getUsed();
        check(s.scan(INDEX), total);
        return Math.max(0, probe.peak - before);
    }

    /**
     * Forces a GC at a few points of each phase and records the used heap after it: every tenth of the read and at
     * its end (an in-memory table is full then), after at most 20 of the counted partitions (each one's table is
     * still reachable while the listener is told), and after the read-back.
     */
    private static final class GcProbe implements DuplicateScanListener {
        private final MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
        private final long total;
        private long nextRead;
        private long peak;

        GcProbe(long total) {
            this.total = total;
            this.nextRead = total / 10;
        }

        @Override
        public void onProgress(ScanProgress p) {
            boolean probe = switch (p.phase()) {
                case READ -> p.done() >= nextRead && p.done() > 0;
                case COUNT -> p.done() == p.total() || p.done() % Math.max(1, p.total() / 20) == 0;
                case VERIFY -> p.done() == p.total();
            };
            if (p.phase() == ScanProgress.Phase.READ && probe) {
                nextRead = p.done() < total ? Math.min(total, p.done() + total / 10) : Long.MAX_VALUE;
            }
            if (probe) {
                System.gc();
                peak = Math.max(peak, memory.getHeapMemoryUsage().getUsed());
            }
        }
    }

    /** {@code docs} orders routed by their ids, then {@value #DUPLICATES} of them again under another routing value. */
    private void load(int docs) throws Exception {
        if (es.indices().exists(e -> e.index(INDEX)).value()) {
            es.indices().delete(d -> d.index(INDEX));
        }
        es.indices()
                .create(c -> c.index(INDEX)
                        .settings(s -> s.numberOfShards(String.valueOf(SHARDS))
                                .numberOfReplicas("0")
                                .refreshInterval(t -> t.time("-1"))));
        for (int from = 0; from < docs; from += BATCH) {
            List<BulkOperation> ops = new ArrayList<>(BATCH);
            for (int i = from; i < Math.min(docs, from + BATCH); i++) {
                String id = "order-" + i;
                ops.add(BulkOperation.of(o -> o.index(x -> x.index(INDEX).id(id).document(Map.of("n", 1)))));
            }
            bulk(ops);
        }
        RoutingCalculator calc = RoutingClient.of(b -> b.client(es)).calculator(INDEX);
        List<BulkOperation> strays = new ArrayList<>();
        for (int i = 0; i < DUPLICATES; i++) {
            String id = "order-" + (i * (docs / DUPLICATES));
            // A routing value that leads to another shard than the id's own: a second copy, not an overwrite.
            String routing = calc.routingValuesForShard((calc.shard(DocRef.id(id)) + 1) % SHARDS, 1, "stray-")
                    .get(0);
            strays.add(BulkOperation.of(
                    o -> o.index(x -> x.index(INDEX).id(id).routing(routing).document(Map.of("n", 2)))));
        }
        bulk(strays);
        es.indices().refresh(r -> r.index(INDEX));
        es.indices().forcemerge(f -> f.index(INDEX).maxNumSegments(1L));
        long count = es.count(c -> c.index(INDEX)).count();
        if (count != docs + DUPLICATES) {
            throw new IllegalStateException("expected " + (docs + DUPLICATES) + " documents, found " + count);
        }
    }

    private void bulk(List<BulkOperation> ops) throws Exception {
        BulkResponse r = es.bulk(b -> b.operations(ops));
        if (r.errors()) {
            throw new IllegalStateException("bulk failed: "
                    + r.items().stream()
                            .filter(x -> x.error() != null)
                            .findFirst()
                            .orElseThrow()
                            .error());
        }
    }
}
