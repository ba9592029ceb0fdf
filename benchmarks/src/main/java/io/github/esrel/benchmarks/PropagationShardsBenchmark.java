package io.github.esrel.benchmarks;

import co.elastic.clients.elasticsearch.ElasticsearchClient;
import co.elastic.clients.elasticsearch._types.HealthStatus;
import co.elastic.clients.elasticsearch.core.BulkResponse;
import co.elastic.clients.elasticsearch.core.bulk.BulkOperation;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.github.esrel.denorm.PropagationResult;
import io.github.esrel.denorm.Propagator;
import io.github.esrel.denorm.Relation;
import io.github.esrel.testenv.EsCluster;
import java.io.PrintStream;
import java.io.StringReader;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * Propagation that grows with the cluster (issue 14 §2b): on a 3-node cluster of its own, a user with 100,000 posts
 * renames himself, once with the posts in an index of 1 shard and once of 6 shards (1 replica each). The propagation
 * reads the posts with one slice per shard ({@code Propagator.Builder.slices}) and keeps {@value #IN_FLIGHT} bulks
 * in flight; its peer is raw {@code _bulk} re-indexing the same documents with {@value #IN_FLIGHT} requests in flight
 * on the same index layout, measured just before it. Goal: the 6-shard propagation at least 1.5x the 1-shard one;
 * where raw {@code _bulk} itself does not scale that much, its scaling is the floor the figure is held against.
 */
final class PropagationShardsBenchmark {

    private static final String USERS = "bench-shards-users";
    private static final String POSTS = "bench-shards-posts";
    private static final int CHILDREN = 100_000;
    private static final int BATCH = 1000;
    private static final int IN_FLIGHT = 4;
    /** The bound of the sliced runs: one slice per shard of the 6-shard index. */
    private static final int SLICES = 8;

    private final PrintStream out;
    private final BenchRecord record;

    PropagationShardsBenchmark(PrintStream out, BenchRecord record) {
        this.out = out;
        this.record = record;
    }

    void run() throws Exception {
        try (EsCluster cluster = EsCluster.builder().nodes(3).heap("512m").build()) {
            cluster.start();
            ElasticsearchClient es = cluster.client();
            out.printf(
                    "%nPropagation by shards: %,d children on %d nodes, 1 replica, %d bulks in flight, batches of %d%n",
                    CHILDREN, cluster.size(), IN_FLIGHT, BATCH);
            out.printf("  %-70s %10s %10s %10s%n", "what", "docs/s", "seconds", "ratio");
            double[] one = layout(es, 1);
            double[] six = layout(es, 6);
            double propScale = six[1] / one[1];
            double rawScale = six[0] / one[0];
            out.printf(
                    "  6 shards vs 1: propagation %.2fx (goal >= 1.5x), raw _bulk %.2fx (the floor on this machine)%n",
                    propScale, rawScale);
            record.add(
                    "propagation-shards",
                    "esrel propagation, 6 shards vs 1 shard",
                    propScale,
                    "x",
                    rawScale > 0 ? propScale / rawScale : Double.NaN,
                    BenchRecord.Better.HIGHER,
                    Double.NaN);
            record.add(
                    "propagation-shards",
                    "raw _bulk, 6 shards vs 1 shard",
                    rawScale,
                    "x",
                    Double.NaN,
                    BenchRecord.Better.HIGHER,
                    Double.NaN);
        }
    }

    /** Raw {@code _bulk} then propagation on an index of {@code shards} shards; returns both rates in docs/s. */
    private double[] layout(ElasticsearchClient es, int shards) throws Exception {
        setUp(es, shards);
        bulk(es, "John Smith"); // the initial load: new documents, not timed
        es.indices().refresh(r -> r.index(POSTS));
        long rawNanos = bulk(es, "John Raw");
        es.indices().refresh(r -> r.index(POSTS));
        Relation author = Relation.of(r -> r.name("post-author-shards")
                .parentIndex(USERS)
                .childIndex(POSTS)
                .parentIdField("user.id")
                .copy("name", "user.name"));
        Propagator p = Propagator.of(b -> b.client(es)
                .relation(author)
                .batchSize(BATCH)
                .bulksInFlight(IN_FLIGHT)
                .slices(SLICES));
        rename(es, "John Renamed");
        long start = System.nanoTime();
        PropagationResult r = p.propagate("1");
        long propNanos = System.nanoTime() - start;
        if (r.counts().written() != CHILDREN || !r.complete()) {
            throw new IllegalStateException("propagation did not rewrite every child: " + r);
        }
        int slices = p.checkpoint(r.jobId()).orElseThrow().slices().size();
        double raw = CHILDREN / (rawNanos / 1e9);
        double prop = CHILDREN / (propNanos / 1e9);
        String s = shards == 1 ? "1 shard" : shards + " shards";
        out.printf(
                "  %-70s %,10.0f %10.1f %10s%n",
                "raw _bulk re-indexing the documents, " + s + " (baseline)", raw, rawNanos / 1e9, "1.00x");
        out.printf(
                "  %-70s %,10.0f %10.1f %9.2fx%n",
                "esrel propagation, " + s + ", " + slices + (slices == 1 ? " slice" : " slices"),
                prop,
                propNanos / 1e9,
                prop / raw);
        record.add(
                "propagation-shards",
                "raw _bulk, " + s + ", " + IN_FLIGHT + " in flight",
                raw,
                "docs/s",
                Double.NaN,
                BenchRecord.Better.HIGHER,
                Double.NaN);
        record.add(
                "propagation-shards",
                "esrel propagation, " + s + ", " + IN_FLIGHT + " in flight",
                prop,
                "docs/s",
                prop / raw,
                BenchRecord.Better.HIGHER,
                Double.NaN);
        if (shards > 1) {
            // What the slices add: the same index read with one stream, as before slices existed.
            Propagator oneStream = Propagator.of(b -> b.client(es)
                    .relation(author)
                    .batchSize(BATCH)
                    .bulksInFlight(IN_FLIGHT)
                    .slices(1));
            rename(es, "John One Stream");
            long start1 = System.nanoTime();
            PropagationResult r1 = oneStream.propagate("1");
            long oneNanos = System.nanoTime() - start1;
            if (r1.counts().written() != CHILDREN || !r1.complete()) {
                throw new IllegalStateException("propagation with one slice did not rewrite every child: " + r1);
            }
            double one = CHILDREN / (oneNanos / 1e9);
            out.printf(
                    "  %-70s %,10.0f %10.1f %9.2fx%n",
                    "for reference: esrel propagation, " + s + ", slices(1)", one, oneNanos / 1e9, one / raw);
            record.add(
                    "propagation-shards",
                    "esrel propagation, " + s + ", slices(1), " + IN_FLIGHT + " in flight",
                    one,
                    "docs/s",
                    one / raw,
                    BenchRecord.Better.HIGHER,
                    Double.NaN);
        }
        return new double[] {raw, prop};
    }

    private static void setUp(ElasticsearchClient es, int shards) throws Exception {
        for (String index : List.of(USERS, POSTS, "esrel-propagation")) {
            if (es.indices().exists(e -> e.index(index)).value()) {
                es.indices().delete(d -> d.index(index));
            }
        }
        es.indices()
                .create(c -> c.index(USERS).settings(s -> s.numberOfShards("1").numberOfReplicas("1")));
        es.indices().create(c -> c.index(POSTS).withJson(new StringReader("""
            {"settings": {"number_of_shards": %d, "number_of_replicas": 1, "refresh_interval": "1s"},
             "mappings": {"properties": {"title": {"type": "text"}, "body": {"type": "text"}, "date": {"type": "long"},
               "tags": {"type": "keyword"}, "user": {"properties": {"id": {"type": "keyword"}, "name": {"type": "keyword"}}}}}}""".formatted(shards))));
        es.cluster().health(h -> h.index(USERS + "," + POSTS).waitForStatus(HealthStatus.Green));
        rename(es, "John Smith");
    }

    private static void rename(ElasticsearchClient es, String name) throws Exception {
        es.index(i -> i.index(USERS).id("1").document(Map.of("name", name)));
    }

    private static ObjectNode post(String name, int i) {
        ObjectNode p = JsonNodeFactory.instance
                .objectNode()
                .put("title", "Post " + i + ": relationships in Elasticsearch")
                .put(
                        "body",
                        "Elasticsearch has no joins; copy what you query on into the documents you search, and keep the"
                                + " copies up to date when the original changes. Post number " + i + ".")
                .put("date", 1_700_000_000_000L + i * 1000L);
        p.putArray("tags").add("denormalization").add("concurrency");
        p.putObject("user").put("id", "1").put("name", name);
        return p;
    }

    /** Indexes user 1's posts with {@value #IN_FLIGHT} requests in flight (threads taking turns); nanoseconds. */
    private static long bulk(ElasticsearchClient es, String name) throws Exception {
        long start = System.nanoTime();
        ExecutorService pool = Executors.newFixedThreadPool(IN_FLIGHT);
        try {
            List<Future<?>> fs = new ArrayList<>();
            for (int t = 0; t < IN_FLIGHT; t++) {
                int first = t;
                fs.add(pool.submit(() -> {
                    for (int from = first * BATCH; from < CHILDREN; from += IN_FLIGHT * BATCH) {
                        List<BulkOperation> ops = new ArrayList<>(BATCH);
                        for (int i = from; i < Math.min(CHILDREN, from + BATCH); i++) {
                            ObjectNode doc = post(name, i);
                            String id = "p" + i;
                            ops.add(BulkOperation.of(
                                    o -> o.index(x -> x.index(POSTS).id(id).document(doc))));
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
                    return null;
                }));
            }
            for (Future<?> f : fs) {
                f.get();
            }
        } finally {
            pool.shutdown();
        }
        return System.nanoTime() - start;
    }
}
