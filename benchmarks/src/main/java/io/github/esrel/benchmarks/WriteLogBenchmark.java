package io.github.esrel.benchmarks;

import co.elastic.clients.elasticsearch.ElasticsearchClient;
import co.elastic.clients.elasticsearch.core.GetResponse;
import co.elastic.clients.json.JsonData;
import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import io.github.esrel.internal.Clients;
import io.github.esrel.occ.Occ;
import java.io.PrintStream;
import java.io.StringReader;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;

/**
 * What esrel's guarantees about lost answers cost.
 *
 * <ul>
 *   <li>One writer's read and conditional write on the client esrel makes of the application's (its transport never
 *       lets the low-level client send a write twice) against the same on the application's client: what that
 *       guarantee costs every write.</li>
 *   <li>One writer, and 16 writers combining, voting through {@code Occ} with the write log ({@code
 *       Occ.Builder#writeLog}, opt-in) against without it.</li>
 *   <li>What the log adds to a document: its bytes in the source, and on disk (the store of 20,000 documents, force
 *       merged) with the field mapped {@code "enabled": false} and with dynamic mapping, against documents without
 *       it; and how fast such documents are indexed.</li>
 * </ul>
 * All sides in alternating rounds on the warm node.
 */
final class WriteLogBenchmark {

    private static final String INDEX = "bench-write-log";
    private static final int ROUNDS = 12;
    private static final int VOTES = 400;
    private static final int WRITERS = 16;
    private static final int COMBINED_VOTES_EACH = 60;
    private static final int DOCS = 20_000;

    private final ElasticsearchClient es;
    private final PrintStream out;
    private final BenchRecord record;

    WriteLogBenchmark(ElasticsearchClient es, PrintStream out, BenchRecord record) {
        this.es = es;
        this.out = out;
        this.record = record;
    }

    @JsonIgnoreProperties(ignoreUnknown = true)
    record Counter(long votes) {
        Counter vote() {
            return new Counter(votes + 1);
        }
    }

    void run() throws Exception {
        es.indices()
                .create(c -> c.index(INDEX).settings(s -> s.numberOfShards("1").numberOfReplicas("0")));
        out.printf("%nThe write log: what it costs%n");
        out.printf("  %-72s %9s %9s %8s %9s %8s%n", "what", "A", "B", "B/A", "median", "spread");

        Occ plain = Occ.of(b -> b.client(es));
        Occ logged = Occ.of(b -> b.client(es).writeLog(true));
        es.index(i -> i.index(INDEX).id("plain").document(new Counter(0)));
        es.index(i -> i.index(INDEX).id("logged").document(new Counter(0)));
        for (int warm = 0; warm < 2; warm++) { // the JIT and the connections, on every path
            votes(plain, "plain", 200);
            votes(logged, "logged", 200);
        }

        // What esrel's transport costs a write: the same read and conditional write, sent on the application's
        // client (A) and on the client esrel makes of it (B), whose transport never lets the low-level client send a
        // write twice. (Occ itself is not the B side: it remembers what it wrote and skips reads, which is not the
        // transport's doing.)
        ElasticsearchClient guarded = Clients.adopt(es);
        es.index(i -> i.index(INDEX).id("raw").document(new Counter(0)));
        for (int warm = 0; warm < 2; warm++) {
            rawVotes(es, "raw", 200);
            rawVotes(guarded, "raw", 200);
        }
        alternating(
                "1 writer, read + conditional write, esrel's transport (B) vs the application's (A)",
                () -> rawVotes(es, "raw", VOTES),
                () -> rawVotes(guarded, "raw", VOTES),
                "votes/s");
        alternating(
                "1 writer, Occ.update, with the write log (B) vs without (A)",
                () -> votes(plain, "plain", VOTES),
                () -> votes(logged, "logged", VOTES),
                "votes/s");
        alternating(
                "16 writers, one document, combining, with the write log (B) vs without (A)",
                () -> concurrentVotes(plain, "plain"),
                () -> concurrentVotes(logged, "logged"),
                "votes/s");
        es.indices().delete(d -> d.index(INDEX));

        storeSize();
    }

    /** The read-and-conditional-write loop of {@code n} votes, on {@code client}. */
    private static long rawVotes(ElasticsearchClient client, String id, int n) throws Exception {
        for (int i = 0; i < n; i++) {
            GetResponse<Counter> got = client.get(g -> g.index(INDEX).id(id), Counter.class);
            Counter next = got.source().vote();
            client.index(x -> x.index(INDEX)
                    .id(id)
                    .ifSeqNo(got.seqNo())
                    .ifPrimaryTerm(got.primaryTerm())
                    .document(next));
        }
        return n;
    }

    private static long votes(Occ occ, String id, int n) {
        for (int i = 0; i < n; i++) {
            occ.update(INDEX, id, Counter.class, Counter::vote);
        }
        return n;
    }

    private static long concurrentVotes(Occ occ, String id) throws Exception {
        List<Thread> threads = new ArrayList<>();
        List<Throwable> failures = java.util.Collections.synchronizedList(new ArrayList<>());
        for (int w = 0; w < WRITERS; w++) {
            Thread t = new Thread(() -> {
                try {
                    votes(occ, id, COMBINED_VOTES_EACH);
                } catch (Throwable e) {
                    failures.add(e);
                }
            });
            threads.add(t);
            t.start();
        }
        for (Thread t : threads) {
            t.join();
        }
        if (!failures.isEmpty()) {
            throw new IllegalStateException("a writer failed", failures.get(0));
        }
        return (long) WRITERS * COMBINED_VOTES_EACH;
    }

    private void alternating(String what, AlternatingRounds.Round a, AlternatingRounds.Round b, String unit)
            throws Exception {
        AlternatingRounds.Result r = AlternatingRounds.run(ROUNDS, a, b);
        out.printf(
                "  %-72s %,9.0f %,9.0f %7.3fx %8.3fx %7.1f %%%n",
                what, r.a(), r.b(), r.ratio(), r.medianRoundRatio(), r.spread() * 100);
        record.add("write-log", what, r.b(), unit, r.medianRoundRatio(), BenchRecord.Better.HIGHER, r.spread());
    }

    /**
     * The bytes a full log adds: in each document's source, and in the store of {@value #DOCS} small documents, with
     * the field not indexed ({@code "enabled": false}) and dynamically mapped; and how fast such documents are indexed.
     */
    private void storeSize() throws Exception {
        int sourceBytes = fullLog(new Random(42)).length() + "\"_esrel_writes\":,".length();
        Map<String, String> mappings = new LinkedHashMap<>();
        mappings.put("without the log", null);
        mappings.put(
                "with the log, mapped enabled: false",
                "{\"properties\":{\"_esrel_writes\":{\"type\":\"object\"," + "\"enabled\":false}}}");
        mappings.put("with the log, dynamic mapping", "");
        Map<String, double[]> figures = new LinkedHashMap<>(); // bytes per document on disk, documents per second
        index(INDEX + "-warmup", null); // the first bulks of a run are slower whatever they hold
        es.indices().delete(d -> d.index(INDEX + "-warmup"));
        for (Map.Entry<String, String> m : mappings.entrySet()) {
            String index = INDEX + "-" + figures.size();
            double perSecond = index(index, m.getValue());
            es.indices().refresh(r -> r.index(index));
            es.indices().forcemerge(f -> f.index(index).maxNumSegments(1L));
            long bytes = es.indices()
                    .stats(s -> s.index(index))
                    .indices()
                    .get(index)
                    .primaries()
                    .store()
                    .sizeInBytes();
            figures.put(m.getKey(), new double[] {bytes / (double) DOCS, perSecond});
            es.indices().delete(d -> d.index(index));
        }
        double[] without = figures.get("without the log");
        out.printf("  the write log, full (8 writes): %d bytes of each document's source%n", sourceBytes);
        record.add(
                "write-log",
                "write log, full: bytes of the source",
                sourceBytes,
                "bytes",
                Double.NaN,
                BenchRecord.Better.LOWER,
                Double.NaN);
        for (Map.Entry<String, double[]> f : figures.entrySet()) {
            double added = f.getValue()[0] - without[0];
            out.printf(
                    Locale.ROOT,
                    "  %-72s %,9.0f bytes/doc on disk (%+,.0f)  %,9.0f docs/s indexed (%.2fx)%n",
                    DOCS + " small documents " + f.getKey(),
                    f.getValue()[0],
                    added,
                    f.getValue()[1],
                    f.getValue()[1] / without[1]);
            if (f.getValue() != without) {
                record.add(
                        "write-log",
                        "documents " + f.getKey() + ": bytes added on disk per document",
                        added,
                        "bytes",
                        Double.NaN,
                        BenchRecord.Better.LOWER,
                        Double.NaN);
                record.add(
                        "write-log",
                        "documents " + f.getKey() + ": indexed per second, against without",
                        f.getValue()[1],
                        "docs/s",
                        f.getValue()[1] / without[1],
                        BenchRecord.Better.HIGHER,
                        Double.NaN);
            }
        }
    }

    /**
     * Creates {@code index} with {@code mapping} ({@code null}: documents without the log; empty: dynamic mapping)
     * and indexes {@value #DOCS} documents, each with its own full log unless {@code mapping} is {@code null}.
     *
     * @return documents indexed per second
     */
    private double index(String index, String mapping) throws Exception {
        es.indices().create(c -> {
            c.index(index).settings(s -> s.numberOfShards("1").numberOfReplicas("0"));
            if (mapping != null && !mapping.isEmpty()) {
                c.mappings(mp -> mp.withJson(new StringReader(mapping)));
            }
            return c;
        });
        Random random = new Random(42);
        long start = System.nanoTime();
        for (int from = 0; from < DOCS; from += 1000) {
            int first = from;
            List<String> sources = new ArrayList<>(1000);
            for (int d = first; d < first + 1000; d++) {
                sources.add("{\"votes\":" + d + ",\"name\":\"design " + d + "\""
                        + (mapping != null ? ",\"_esrel_writes\":" + fullLog(random) : "") + "}");
            }
            es.bulk(b -> {
                for (int d = 0; d < sources.size(); d++) {
                    String id = "d" + (first + d);
                    String json = sources.get(d);
                    b.operations(o -> o.index(x -> x.index(index).id(id).document(JsonData.fromJson(json))));
                }
                return b;
            });
        }
        return DOCS / ((System.nanoTime() - start) / 1e9);
    }

    /** A log of 8 writes as esrel writes it: realistic versions and random ids. */
    private static String fullLog(Random random) {
        StringBuilder sb = new StringBuilder("[");
        long seq = 1_000_000 + random.nextInt(1_000_000);
        for (int i = 0; i < 8; i++) {
            sb.append(i == 0 ? "" : ",")
                    .append("{\"on\":\"1:")
                    .append(seq + i * 3L)
                    .append("\",\"id\":\"")
                    .append(String.format(Locale.ROOT, "%016x", random.nextLong()))
                    .append("\"}");
        }
        return sb.append(']').toString();
    }
}
