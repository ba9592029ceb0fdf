package io.github.esrel.benchmarks;

import co.elastic.clients.elasticsearch.ElasticsearchClient;
import co.elastic.clients.elasticsearch._types.FieldValue;
import co.elastic.clients.elasticsearch._types.SortOrder;
import co.elastic.clients.elasticsearch.core.BulkRequest;
import co.elastic.clients.elasticsearch.core.BulkResponse;
import co.elastic.clients.elasticsearch.core.search.Hit;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.github.esrel.fs.FileTree;
import io.github.esrel.fs.RenameResult;
import io.github.esrel.lock.TreeLocks;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;

/**
 * Seed 000's directory rename: every file below a directory rewritten with its new path. Compared, on the same
 * node and index, in one run:
 * <ul>
 *   <li>the raw equivalent (baseline): a point-in-time scan of the files and unconditional {@code _bulk}
 *       re-indexing with the new paths, one request at a time, the same page size, no locks;</li>
 *   <li>{@code FileTree.renameDirectory}: exclusive locks on both directories, the same scan, bulk writes
 *       conditional on each file's {@code _seq_no} (or fenced by the lock's token), progress, refresh.</li>
 * </ul>
 * Each direction is measured on {@value #FILES} files, best of {@value #ROUNDS} rounds, renaming back and forth.
 */
final class RenameBenchmark {

    private static final String INDEX = "bench-fs";
    private static final int FILES = 20_000;
    private static final int PAGE = 1000;
    private static final int ROUNDS = 3;

    private final ElasticsearchClient es;
    private final PrintStream out;

    private final BenchRecord record;

    RenameBenchmark(ElasticsearchClient es, PrintStream out, BenchRecord record) {
        this.es = es;
        this.out = out;
        this.record = record;
    }

    void run() throws Exception {
        if (es.indices().exists(e -> e.index(INDEX)).value()) {
            es.indices().delete(d -> d.index(INDEX));
        }
        try (TreeLocks locks = TreeLocks.of(b -> b.client(es).index(INDEX))) {
            FileTree fs =
                    FileTree.of(b -> b.client(es).index(INDEX).locks(locks).batchSize(PAGE));
            FileTree.Fencing fencing = fs.createIndex();
            long t0 = System.nanoTime();
            load(fs);
            out.printf(
                    "%nDirectory rename of %,d files (pages of %d, %s fencing, locks via %s), loaded in %.1f s%n",
                    FILES, PAGE, fencing, locks.getClass().getSimpleName(), (System.nanoTime() - t0) / 1e9);

            // Warm-up, then alternate: raw a -> b, esrel b -> a, ...
            rawRename("/a", "/b");
            check(fs.renameDirectory("/b", "/a"));
            List<Long> raw = new ArrayList<>();
            List<Long> esrel = new ArrayList<>();
            for (int round = 0; round < ROUNDS; round++) {
                long start = System.nanoTime();
                rawRename("/a", "/b");
                raw.add(System.nanoTime() - start);
                start = System.nanoTime();
                check(fs.renameDirectory("/b", "/a"));
                esrel.add(System.nanoTime() - start);
            }
            long rawBest = raw.stream().mapToLong(Long::longValue).min().orElseThrow();
            long esrelBest = esrel.stream().mapToLong(Long::longValue).min().orElseThrow();
            out.printf(
                    "  %-78s %10s %10s %10s%n", "what (best of " + ROUNDS + " rounds)", "files/s", "seconds", "time");
            out.printf(
                    "  %-78s %,10.0f %10.2f %10s%n",
                    "raw PIT scan + unconditional _bulk with new paths (baseline)",
                    FILES / (rawBest / 1e9),
                    rawBest / 1e9,
                    "1.00x");
            out.printf(
                    "  %-78s %,10.0f %10.2f %9.2fx%n",
                    "FileTree.renameDirectory (locks, conditional _bulk, refresh)",
                    FILES / (esrelBest / 1e9),
                    esrelBest / 1e9,
                    esrelBest / (double) rawBest);
            out.printf("  runs (s): raw %s, esrel %s%n", secs(raw), secs(esrel));
            double spread = Math.max(spread(raw), spread(esrel));
            record.add(
                    "rename",
                    "raw PIT scan + unconditional _bulk (baseline)",
                    FILES / (rawBest / 1e9),
                    "files/s",
                    Double.NaN,
                    BenchRecord.Better.HIGHER,
                    spread(raw));
            record.add(
                    "rename",
                    "FileTree.renameDirectory",
                    FILES / (esrelBest / 1e9),
                    "files/s",
                    (double) rawBest / esrelBest,
                    BenchRecord.Better.HIGHER,
                    spread);
        }
    }

    /** The files: one written through the tree (its document is the template), the rest bulk-indexed alike. */
    private void load(FileTree fs) throws Exception {
        fs.write("/a/template.txt", "template");
        es.indices().refresh(r -> r.index(INDEX));
        Hit<ObjectNode> template = es.search(s -> s.index(INDEX).size(1), ObjectNode.class)
                .hits()
                .hits()
                .get(0);
        es.delete(d -> d.index(INDEX).id(template.id()));
        for (int from = 0; from < FILES; from += PAGE) {
            BulkRequest.Builder bulk = new BulkRequest.Builder();
            for (int i = from; i < Math.min(FILES, from + PAGE); i++) {
                ObjectNode doc = template.source().deepCopy();
                String dir = "/a/d" + (i % 100);
                doc.put("name", "file-" + i + ".txt").put("path", dir).put("contents", "contents of file " + i);
                if (doc.has("path.tree")) {
                    ArrayNode tokens =
                            JsonNodeFactory.instance.arrayNode().add("/a").add(dir);
                    doc.set("path.tree", tokens);
                }
                bulk.operations(o -> o.index(x -> x.index(INDEX).document(doc)));
            }
            requireNoErrors(es.bulk(bulk.build()));
        }
        es.indices().refresh(r -> r.index(INDEX));
    }

    /** What a rename costs without locks or conditions: scan the files below {@code from}, re-index with new paths. */
    private void rawRename(String from, String to) throws Exception {
        String pit = es.openPointInTime(o -> o.index(INDEX).keepAlive(k -> k.time("1m")))
                .id();
        try {
            List<FieldValue> after = null;
            while (true) {
                List<FieldValue> continueAfter = after;
                List<Hit<ObjectNode>> hits = es.search(
                                s -> {
                                    s.pit(p -> p.id(pit))
                                            .size(PAGE)
                                            .query(q -> q.prefix(
                                                    p -> p.field("path").value(from)))
                                            .sort(o -> o.field(
                                                    f -> f.field("_shard_doc").order(SortOrder.Asc)));
                                    if (continueAfter != null) {
                                        s.searchAfter(continueAfter);
                                    }
                                    return s;
                                },
                                ObjectNode.class)
                        .hits()
                        .hits();
                if (hits.isEmpty()) {
                    break;
                }
                BulkRequest.Builder bulk = new BulkRequest.Builder();
                for (Hit<ObjectNode> h : hits) {
                    ObjectNode doc = h.source();
                    String path = to + doc.get("path").asText().substring(from.length());
                    doc.put("path", path);
                    if (doc.has("path.tree")) {
                        doc.set(
                                "path.tree",
                                JsonNodeFactory.instance.arrayNode().add(to).add(path));
                    }
                    bulk.operations(o -> o.index(x -> x.index(INDEX).id(h.id()).document(doc)));
                }
                requireNoErrors(es.bulk(bulk.build()));
                after = hits.get(hits.size() - 1).sort();
            }
        } finally {
            es.closePointInTime(c -> c.id(pit));
        }
        es.indices().refresh(r -> r.index(INDEX));
    }

    private static void check(RenameResult r) {
        if (r.status() != RenameResult.Status.DONE || r.moved() != FILES) {
            throw new IllegalStateException("the rename did not move every file: " + r);
        }
    }

    private static void requireNoErrors(BulkResponse r) {
        if (r.errors()) {
            throw new IllegalStateException("bulk failed: "
                    + r.items().stream()
                            .filter(i -> i.error() != null)
                            .findFirst()
                            .map(i -> i.error().reason())
                            .orElse("?"));
        }
    }

    private static String secs(List<Long> nanos) {
        return nanos.stream().map(n -> String.format("%.2f", n / 1e9)).toList().toString();
    }

    private static double spread(List<Long> nanos) {
        return Timer.Sample.ofRuns(nanos.stream().mapToDouble(Long::doubleValue).toArray());
    }
}
