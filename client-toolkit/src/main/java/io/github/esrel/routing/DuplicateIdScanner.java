package io.github.esrel.routing;

import co.elastic.clients.elasticsearch.ElasticsearchClient;
import co.elastic.clients.elasticsearch._types.ElasticsearchException;
import co.elastic.clients.elasticsearch.core.SearchResponse;
import co.elastic.clients.elasticsearch.core.search.Hit;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.github.esrel.doc.DocRef;
import io.github.esrel.doc.DocStream;
import io.github.esrel.doc.DocStreamException;
import io.github.esrel.internal.Checks;
import io.github.esrel.internal.Clients;
import io.github.esrel.internal.Listeners;
import io.github.esrel.internal.ShardFailures;
import io.github.esrel.retry.Attempts;
import io.github.esrel.retry.Failures;
import io.github.esrel.retry.RetryPolicy;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorCompletionService;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Finds the ids that live more than once in an index (seed 002): a document indexed with one routing value and
 * again, under the same {@code _id}, with another that leads to another shard is stored twice, since
 * Elasticsearch keeps ids unique per shard only; every later get, update or delete by id then sees one copy.
 *
 * <pre>{@code
 * DuplicateIdScanner scanner = DuplicateIdScanner.of(b -> b.client(es)
 *     .listener(new DuplicateScanListener() {
 *         public void onProgress(ScanProgress p) { System.out.println(p.bar(40)); }
 *     }));
 * DuplicateIdReport report = scanner.scan("orders");
 * for (DuplicateId d : report.duplicates()) {
 *     for (DuplicateId.Copy c : d.copies()) {
 *         System.out.println(d.id() + " routing=" + c.routing() + " shard=" + c.shard() + ": " + c.deleteRequest());
 *     }
 * }
 * }</pre>
 *
 * <p><b>How it scans.</b> One point in time over the index, so that the scan sees one consistent snapshot
 * while writes go on. Its document count decides the plan. Then {@code slices} sliced searches on that point
 * in time (by default one per shard, at most 4, each on its own thread) read {@code _index} and {@code _id} of
 * every document ({@code _source: false}, sorted by {@code _shard_doc}, {@code search_after}). Every id is
 * reduced to a 64-bit fingerprint and counted; an id counted twice is a candidate. Last, the candidates are read
 * back in the same snapshot with an {@code ids} query and {@code explain: true}, which makes Elasticsearch name
 * the shard of every hit: the shard, routing value, {@code _seq_no} and {@code _primary_term} of each copy in
 * the report are the server's own answer, not computed. The point in time is closed at the end, also after a
 * failure.
 *
 * <p><b>Bounded memory, whatever the index size.</b> Sorting on {@code _id} is off by default in current
 * Elasticsearch ({@code indices.id_field_data.enabled: false}), so the scan cannot let the server bring equal ids
 * together; it partitions by hash instead. When the document count is at most {@code maxIdsInMemory} (default
 * {@value #DEFAULT_MAX_IDS_IN_MEMORY}), the fingerprints are counted in one table in memory and nothing touches
 * the disk. Above that, each id is first appended to one of {@code P} spill files chosen by a hash of the id,
 * {@code P = ceil(1.25 * documents / maxIdsInMemory)}, and the files are then counted one at a time: every copy of
 * an id is in the same file, so counting a file finds all of its duplicates. A file that still holds more than
 * the budget is split again (another hash) before it is counted. What the heap holds at any time:
 * <ul>
 *   <li>the fingerprint table of one partition: at most {@code maxIdsInMemory} entries of 10 bytes in an array
 *       kept at most 3/4 full, so 13 to 27 bytes per id (21 MB for the default budget), and no object per id;</li>
 *   <li>while reading, one page per slice ({@code slices * pageSize} hits) and a write buffer of 8 KB per spill
 *       file (at most 1,024 files written at once, so at most 8 MB);</li>
 *   <li>the report: at most {@code maxReported} ids with their copies (default {@value #DEFAULT_MAX_REPORTED}).</li>
 * </ul>
 * The disk holds each id once, about its length in UTF-8 plus 3 bytes, in a directory of its own under
 * {@code spillDirectory} that is deleted when the scan ends, also after a failure.
 *
 * <p><b>Privileges.</b> {@code read} on the index: the scan only opens a point in time and searches it.
 *
 * <p>Immutable and thread-safe: one scanner can run several scans at once, each with its own point in time,
 * threads and spill files.
 */
public final class DuplicateIdScanner {

    private static final Logger log = LoggerFactory.getLogger(DuplicateIdScanner.class);

    /** Default of {@link Builder#maxIdsInMemory(int)}. */
    public static final int DEFAULT_MAX_IDS_IN_MEMORY = 1_000_000;
    /** Default of {@link Builder#maxReported(int)}. */
    public static final int DEFAULT_MAX_REPORTED = 1_000;
    /** Default of {@link Builder#pageSize(int)}. */
    public static final int DEFAULT_PAGE_SIZE = 5_000;
    /** The most slices chosen by default, whatever the number of shards. */
    static final int DEFAULT_MAX_SLICES = 4;
    /** Hits of one search: Elasticsearch's default {@code index.max_result_window}. */
    private static final int MAX_HITS = 10_000;

    private final ElasticsearchClient client;
    private final int maxIdsInMemory;
    private final int maxReported;
    private final int pageSize;
    private final int slices;
    private final Path spillDirectory;
    private final Duration keepAlive;
    private final DuplicateScanListener listener;
    private final RetryPolicy retry = RetryPolicy.of(r -> r.maxAttempts(10).retryOn(Failures.rejected()));

    private DuplicateIdScanner(Builder b) {
        this.client = Clients.internal(Objects.requireNonNull(b.client, "client cannot be null"));
        this.maxIdsInMemory = b.maxIdsInMemory;
        this.maxReported = b.maxReported;
        this.pageSize = b.pageSize;
        this.slices = b.slices;
        this.spillDirectory = b.spillDirectory;
        this.keepAlive = b.keepAlive;
        this.listener = b.listener;
    }

    /**
     * Builds a scanner with a lambda, in the style of the elasticsearch-java client.
     *
     * @param fn sets the options on the builder it is given and returns it; {@link Builder#client} is required
     * @return the new scanner
     * @throws NullPointerException if no client was given
     * @throws IllegalStateException if the server refuses every request of this client line (an 8.x server with
     *     elasticsearch-java 9.x, say)
     */
    public static DuplicateIdScanner of(Function<Builder, Builder> fn) {
        return fn.apply(new Builder()).build();
    }

    /**
     * Scans every document of an index for ids that live more than once. Blocks until the scan ends; reports
     * to the listener on the way.
     *
     * @param index the index; an alias or pattern works too, and then an id counts as duplicated only within
     *     one of its indices
     * @return what was found: clean, or the duplicated ids with their copies
     * @throws IllegalArgumentException if {@code index} is {@code null} or blank
     * @throws RoutingException if the index does not exist (status 404), the user may not read it (403, the
     *     message names the privilege), a search fails (its status, after retrying rejections), the spill files
     *     cannot be written (status 0, the cause is the {@link IOException}), or the thread is interrupted
     *     (status 0)
     */
    public DuplicateIdReport scan(String index) {
        if (index == null || index.isBlank()) {
            throw new IllegalArgumentException("index must not be empty");
        }
        DuplicateIdReport report;
        try (Run run = new Run(index)) {
            report = run.execute();
        } catch (RoutingException e) {
            Listeners.safely(() -> listener.onFailure(index, e), "DuplicateScanListener.onFailure");
            throw e;
        }
        Listeners.safely(() -> listener.onFinish(report), "DuplicateScanListener.onFinish");
        return report;
    }

    @Override
    public String toString() {
        return "DuplicateIdScanner{maxIdsInMemory=" + maxIdsInMemory + ", maxReported=" + maxReported + ", pageSize="
                + pageSize + ", slices=" + (slices == 0 ? "auto" : String.valueOf(slices)) + ", spillDirectory="
                + spillDirectory + ", keepAlive=" + keepAlive + '}';
    }

    /** One scan: its point in time, spill files and counters. */
    private final class Run implements AutoCloseable {
        private final String index;
        private final Object lock = new Object();
        private final long started = System.nanoTime();
        private @Nullable String pit;
        private @Nullable DuplicateFinder finder;
        private long total;
        private long read;
        private long phaseStart;
        /** When the point in time was last searched, which extends its keep-alive. */
        private long lastSearch;

        private volatile boolean stop;

        Run(String index) {
            this.index = index;
        }

        DuplicateIdReport execute() {
            try {
                pit = client.openPointInTime(o -> o.index(index).keepAlive(t -> t.time(keepAlive.toMillis() + "ms")))
                        .id();
                SearchResponse<Void> count = search(s -> s.size(0).trackTotalHits(t -> t.enabled(true)));
                total = count.hits().total() == null ? 0 : count.hits().total().value();
                int shards = count.shards().total().intValue();
                int sliceCount = slices > 0 ? slices : Math.max(1, Math.min(shards, DEFAULT_MAX_SLICES));
                finder = new DuplicateFinder(total, maxIdsInMemory, maxReported, spillDirectory);
                int partitions = finder.partitions();
                Listeners.safely(
                        () -> listener.onStart(index, total, partitions, sliceCount), "DuplicateScanListener.onStart");

                phaseStart = System.nanoTime();
                progress(ScanProgress.Phase.READ, 0, total);
                readAll(sliceCount);
                if (read != total) {
                    throw new RoutingException(
                            "scanning [" + index + "] read " + read + " documents, but its snapshot" + " holds " + total
                                    + "; the result would not be exact",
                            0,
                            null);
                }

                phaseStart = System.nanoTime();
                lastSearch = phaseStart; // the slices' last pages just extended the keep-alive
                DuplicateFinder.Found found = finder.finish((done, known) -> {
                    keepPointInTimeAlive();
                    progress(ScanProgress.Phase.COUNT, done, known);
                });

                phaseStart = System.nanoTime();
                List<DuplicateId> verified = verify(found.candidates(), shards);
                // A candidate read back with one copy shared its fingerprint with another id: not a duplicate.
                long falsePositives = found.candidates().size() - verified.size();
                long duplicated = found.duplicated() - falsePositives;
                long extra = found.extraCopies() - falsePositives;
                return new DuplicateIdReport(
                        index,
                        read,
                        duplicated,
                        extra,
                        verified,
                        duplicated > verified.size(),
                        found.partitions(),
                        found.spilledBytes(),
                        Duration.ofNanos(System.nanoTime() - started));
            } catch (ElasticsearchException e) {
                throw failure(e.status(), e.getMessage(), e);
            } catch (DocStreamException e) {
                throw failure(e.status(), e.getMessage(), e);
            } catch (IOException e) {
                throw failure(0, e.toString(), e);
            } catch (UncheckedIOException e) {
                throw new RoutingException(
                        "scanning [" + index + "] for duplicate ids failed: " + e.getMessage()
                                + "; give the scanner a spill directory with room for the ids (spillDirectory), or more memory"
                                + " (maxIdsInMemory)",
                        0,
                        e.getCause());
            }
        }

        private RoutingException failure(int status, @Nullable String message, @Nullable Throwable cause) {
            if (status == 404 && message != null && message.contains("index_not_found_exception")) {
                return new RoutingException("no such index [" + index + "]: " + message, 404, cause);
            }
            return new RoutingException("scanning [" + index + "] for duplicate ids failed: " + message, status, cause);
        }

        /** Reads every document, one slice per thread (on this thread when there is one slice). */
        private void readAll(int sliceCount) throws IOException {
            if (sliceCount == 1) {
                readSlice(0, 1);
                return;
            }
            AtomicInteger n = new AtomicInteger();
            ExecutorService pool = Executors.newFixedThreadPool(sliceCount, r -> {
                Thread t = new Thread(r, "esrel-dupscan-" + index + "-" + n.getAndIncrement());
                t.setDaemon(true);
                return t;
            });
            try {
                ExecutorCompletionService<Void> done = new ExecutorCompletionService<>(pool);
                for (int i = 0; i < sliceCount; i++) {
                    int slice = i;
                    done.submit(() -> {
                        readSlice(slice, sliceCount);
                        return null;
                    });
                }
                Throwable first = null;
                for (int i = 0; i < sliceCount; i++) {
                    try {
                        done.take().get();
                    } catch (ExecutionException e) {
                        stop = true; // the other slices end after their current page
                        if (first == null) {
                            first = e.getCause();
                        }
                    }
                }
                if (first instanceof RuntimeException re) {
                    throw re;
                }
                if (first instanceof IOException io) {
                    throw io;
                }
                if (first != null) {
                    throw new RoutingException("scanning [" + index + "] for duplicate ids failed: " + first, 0, first);
                }
            } catch (InterruptedException e) {
                stop = true;
                Thread.currentThread().interrupt();
                throw new RoutingException("scanning [" + index + "] for duplicate ids was interrupted", 0, e);
            } finally {
                pool.shutdownNow();
            }
        }

        private void readSlice(int slice, int of) {
            // Both set by execute() before it reads.
            String pitId = Objects.requireNonNull(pit, "no point in time");
            DuplicateFinder counter = Objects.requireNonNull(finder, "no finder");
            try (DocStream stream = DocStream.of(b -> b.client(client)
                    .index(index)
                    .pointInTime(pitId)
                    .slice(slice, of)
                    .fetchSource(false)
                    .pageSize(pageSize)
                    .keepAlive(keepAlive))) {
                for (List<Hit<ObjectNode>> page = stream.next(); !page.isEmpty() && !stop; page = stream.next()) {
                    List<String> indices = new ArrayList<>(page.size());
                    List<String> ids = new ArrayList<>(page.size());
                    for (Hit<ObjectNode> hit : page) {
                        indices.add(hit.index());
                        ids.add(hit.id());
                    }
                    DuplicateFinder.Prepared prepared = counter.prepare(indices, ids); // hashing, outside the lock
                    synchronized (lock) {
                        counter.add(prepared);
                        read += page.size();
                        progress(ScanProgress.Phase.READ, read, total);
                    }
                }
            }
        }

        /** Reads the candidates back, with the shard of each copy, in batches that fit one search. */
        private List<DuplicateId> verify(List<DuplicateFinder.Candidate> candidates, int shards) throws IOException {
            List<DuplicateFinder.Candidate> sorted = new ArrayList<>(candidates);
            sorted.sort(Comparator.comparing(DuplicateFinder.Candidate::index)
                    .thenComparing(DuplicateFinder.Candidate::id));
            // Each id has at most one copy per shard.
            int batch = Math.max(1, Math.min(1000, MAX_HITS / Math.max(1, shards)));
            List<DuplicateId> verified = new ArrayList<>();
            int done = 0;
            progress(ScanProgress.Phase.VERIFY, 0, sorted.size());
            for (int from = 0; from < sorted.size(); ) {
                String idx = sorted.get(from).index();
                List<String> ids = new ArrayList<>();
                int to = from;
                while (to < sorted.size()
                        && ids.size() < batch
                        && sorted.get(to).index().equals(idx)) {
                    ids.add(sorted.get(to++).id());
                }
                SearchResponse<Void> r = search(s -> s.size(Math.min(MAX_HITS, ids.size() * Math.max(1, shards)))
                        .explain(true)
                        .seqNoPrimaryTerm(true)
                        .source(src -> src.fetch(false))
                        .trackTotalHits(t -> t.enabled(false))
                        .query(q -> q.bool(bq -> bq.filter(f -> f.ids(i -> i.values(ids)))
                                .filter(f -> f.term(t -> t.field("_index").value(idx))))));
                Map<String, List<DuplicateId.Copy>> copies = new LinkedHashMap<>();
                ids.forEach(id -> copies.put(id, new ArrayList<>()));
                for (Hit<Void> hit : r.hits().hits()) {
                    List<DuplicateId.Copy> c = copies.get(hit.id());
                    if (c != null) {
                        c.add(new DuplicateId.Copy(
                                DocRef.of(hit.index(), hit.id()).withRouting(hit.routing()),
                                shardOf(hit),
                                hit.seqNo() == null ? -1 : hit.seqNo(),
                                hit.primaryTerm() == null ? -1 : hit.primaryTerm()));
                    }
                }
                for (Map.Entry<String, List<DuplicateId.Copy>> e : copies.entrySet()) {
                    if (e.getValue().size() > 1) {
                        e.getValue().sort(Comparator.comparingInt(DuplicateId.Copy::shard));
                        verified.add(new DuplicateId(idx, e.getKey(), e.getValue()));
                    } else {
                        log.debug("[{}][{}] shares its fingerprint with another id; not a duplicate", idx, e.getKey());
                    }
                }
                done += ids.size();
                progress(ScanProgress.Phase.VERIFY, done, sorted.size());
                from = to;
            }
            return verified;
        }

        /**
         * Counting many partitions sends no search: extend the point in time's keep-alive (with an empty search)
         * once half of it has passed, so that it is still there to read the duplicates back.
         */
        private void keepPointInTimeAlive() {
            if (System.nanoTime() - lastSearch > keepAlive.toNanos() / 2) {
                try {
                    search(s -> s.size(0).trackTotalHits(t -> t.enabled(false)));
                } catch (IOException e) {
                    throw failure(0, e.toString(), e);
                }
            }
        }

        /** A search on the point in time, retried on rejection; keeps the point in time's newest id. */
        private SearchResponse<Void> search(
                Function<
                                co.elastic.clients.elasticsearch.core.SearchRequest.Builder,
                                co.elastic.clients.elasticsearch.core.SearchRequest.Builder>
                        body)
                throws IOException {
            Attempts attempts = retry.attempts();
            while (true) {
                try {
                    String id = pit;
                    SearchResponse<Void> r = client.search(
                            s -> body.apply(s.pit(p -> p.id(id).keepAlive(t -> t.time(keepAlive.toMillis() + "ms")))),
                            Void.class);
                    if (r.pitId() != null) {
                        pit = r.pitId();
                    }
                    lastSearch = System.nanoTime();
                    String missing = ShardFailures.of(r.shards());
                    if (missing != null) {
                        // Counting without a shard's documents would report duplicates that are not all of them.
                        throw failure(ShardFailures.status(r.shards()), missing, null);
                    }
                    return r;
                } catch (ElasticsearchException e) {
                    if (!(Failures.isRejected(e) && attempts.retryAfter(e))) {
                        throw e;
                    }
                }
            }
        }

        private void progress(ScanProgress.Phase phase, long done, long of) {
            Duration elapsed = Duration.ofNanos(System.nanoTime() - phaseStart);
            double perSecond = elapsed.isZero() ? 0 : done / (elapsed.toNanos() / 1e9);
            Duration eta =
                    perSecond > 0 && of >= done ? Duration.ofMillis((long) ((of - done) / perSecond * 1000)) : null;
            ScanProgress p = new ScanProgress(index, phase, done, of, elapsed, perSecond, eta);
            Listeners.safely(() -> listener.onProgress(p), "DuplicateScanListener.onProgress");
        }

        /** Closes the point in time and deletes the spill files; failures to close the point in time are logged. */
        @Override
        public void close() {
            if (finder != null) {
                finder.close();
            }
            if (pit != null) {
                String id = pit;
                try {
                    client.closePointInTime(c -> c.id(id));
                } catch (IOException | RuntimeException e) {
                    log.warn(
                            "cannot close the point in time over [{}]; it expires after its keep-alive of {}",
                            index,
                            keepAlive,
                            e);
                }
            }
        }
    }

    /** The shard number in a hit's {@code _shard}, which Elasticsearch writes as {@code [index][3]}. */
    static int shardOf(Hit<?> hit) {
        String s = hit.shard();
        if (s == null) {
            throw new IllegalStateException("Elasticsearch returned hit [" + hit.index() + "][" + hit.id()
                    + "] without its shard although the search asked for explain");
        }
        return parseShard(s);
    }

    static int parseShard(String shard) {
        int end = shard.lastIndexOf(']');
        int start = shard.lastIndexOf('[', end);
        try {
            return Integer.parseInt(start >= 0 && end > start ? shard.substring(start + 1, end) : shard.trim());
        } catch (NumberFormatException e) {
            throw new IllegalStateException("cannot read a shard number from _shard [" + shard + "]", e);
        }
    }

    /** Builder for {@link DuplicateIdScanner}. Not thread-safe. */
    public static final class Builder {
        private @Nullable ElasticsearchClient client;
        private int maxIdsInMemory = DEFAULT_MAX_IDS_IN_MEMORY;
        private int maxReported = DEFAULT_MAX_REPORTED;
        private int pageSize = DEFAULT_PAGE_SIZE;
        private int slices;
        private Path spillDirectory = Path.of(System.getProperty("java.io.tmpdir"));
        private Duration keepAlive = Duration.ofMinutes(5);
        private DuplicateScanListener listener = DuplicateScanListener.NO_OP;

        private Builder() {}

        /**
         * Required: the client whose transport (auth, TLS, nodes) every request goes through.
         *
         * @param client the client, not {@code null}; not closed by the scanner
         * @return this builder
         * @throws NullPointerException if {@code client} is {@code null}
         */
        public Builder client(ElasticsearchClient client) {
            this.client = Objects.requireNonNull(client, "client cannot be null");
            return this;
        }

        /**
         * The memory budget: the most ids whose fingerprints are held at once. An index with at most this many
         * documents is scanned in memory; a larger one is hash-partitioned to spill files of about 80 % of this
         * many ids each. Each id costs 13 to 27 bytes of heap. Default {@value #DEFAULT_MAX_IDS_IN_MEMORY}
         * (at most 21 MB).
         *
         * @param maxIdsInMemory ids, from 100 to 200,000,000
         * @return this builder
         * @throws IllegalArgumentException if out of range
         */
        public Builder maxIdsInMemory(int maxIdsInMemory) {
            this.maxIdsInMemory = Checks.between(maxIdsInMemory, 100, 200_000_000, "maxIdsInMemory");
            return this;
        }

        /**
         * The most duplicated ids the report lists with their copies; the report still counts every duplicated
         * id and says when it lists fewer ({@link DuplicateIdReport#truncated()}). Default
         * {@value #DEFAULT_MAX_REPORTED}.
         *
         * @param maxReported ids, from 0 (counts only) to 1,000,000
         * @return this builder
         * @throws IllegalArgumentException if out of range
         */
        public Builder maxReported(int maxReported) {
            this.maxReported = Checks.between(maxReported, 0, 1_000_000, "maxReported");
            return this;
        }

        /**
         * Hits per search page of each slice. Default {@value #DEFAULT_PAGE_SIZE}.
         *
         * @param pageSize hits, from 1 to 10,000
         * @return this builder
         * @throws IllegalArgumentException if out of range
         */
        public Builder pageSize(int pageSize) {
            this.pageSize = Checks.between(pageSize, 1, MAX_HITS, "pageSize");
            return this;
        }

        /**
         * Sliced searches that read the index in parallel, each on its own thread. Default: one per shard of the
         * index, at most {@value DuplicateIdScanner#DEFAULT_MAX_SLICES}.
         *
         * @param slices from 1 (one search, on the calling thread) to 1,024
         * @return this builder
         * @throws IllegalArgumentException if out of range
         */
        public Builder slices(int slices) {
            this.slices = Checks.between(slices, 1, 1024, "slices");
            return this;
        }

        /**
         * Where spill files go when the index has more documents than {@link #maxIdsInMemory(int)}: a directory
         * of their own is created in it and deleted when the scan ends. It needs room for every id once (about
         * its length in UTF-8 plus 3 bytes). Default: {@code java.io.tmpdir}.
         *
         * @param spillDirectory the parent directory, created if missing
         * @return this builder
         * @throws NullPointerException if {@code spillDirectory} is {@code null}
         */
        public Builder spillDirectory(Path spillDirectory) {
            this.spillDirectory = Objects.requireNonNull(spillDirectory, "spillDirectory cannot be null");
            return this;
        }

        /**
         * How long the point in time lives between two searches. Default 5 minutes.
         *
         * @param keepAlive the keep-alive, sent in milliseconds; longer than the listener takes for one call
         * @return this builder
         * @throws NullPointerException if {@code keepAlive} is {@code null}
         * @throws IllegalArgumentException if not positive
         */
        public Builder keepAlive(Duration keepAlive) {
            this.keepAlive = Checks.positive(keepAlive, "keepAlive");
            return this;
        }

        /**
         * Follows every scan. Default {@link DuplicateScanListener#NO_OP}.
         *
         * @param listener the listener, not {@code null}
         * @return this builder
         * @throws NullPointerException if {@code listener} is {@code null}
         */
        public Builder listener(DuplicateScanListener listener) {
            this.listener = Objects.requireNonNull(listener, "listener cannot be null");
            return this;
        }

        /**
         * Creates the scanner. The first esrel entry point built on a client's transport sends it one request
         * ({@code GET /}) to check that the server accepts this client line.
         *
         * @return the new scanner
         * @throws NullPointerException if no client was given
         * @throws IllegalStateException if the server refuses every request of this client line
         */
        public DuplicateIdScanner build() {
            Objects.requireNonNull(client, "client cannot be null");
            return new DuplicateIdScanner(this);
        }
    }
}
