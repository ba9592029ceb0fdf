package io.github.esrel.benchmarks;

import co.elastic.clients.elasticsearch.ElasticsearchClient;
import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/**
 * The vote counters of {@link OccBenchmark} in one index: documents that hold a count of votes (plain, or wide with
 * fields the counting class does not map), what they count, and the writers released together that cast the votes.
 */
final class Votes {

    /** Fields of the wide document that {@link Tally} does not map. */
    static final int UNMAPPED_FIELDS = 10;

    private final ElasticsearchClient es;
    private final String index;

    record Counter(long votes) {
        Counter vote() {
            return new Counter(votes + 1);
        }
    }

    /** A vote counter that maps only the count of a document holding more: its other fields must survive. */
    @JsonIgnoreProperties(ignoreUnknown = true)
    record Tally(long votes) {
        Tally vote() {
            return new Tally(votes + 1);
        }
    }

    /**
     * A class that maps the whole wide document ({@link #resetWide}): what {@link Tally} is measured against, on
     * the same document, so that the difference is what keeping the fields a class does not map costs, not what a
     * bigger document costs the node.
     */
    record Design(
            @JsonProperty("_class") String type,
            long votes,
            String name,
            Owner owner,
            List<String> tags,
            boolean archived,
            int rank,
            String created,
            List<Comment> comments,
            Price price,
            String note) {
        Design vote() {
            return new Design(type, votes + 1, name, owner, tags, archived, rank, created, comments, price, note);
        }

        record Owner(String team, Pager pager) {}

        record Pager(String primary, String secondary) {}

        record Comment(String text, String by) {}

        record Price(String amount, String currency) {}
    }

    /** One writer's vote. */
    interface Vote {
        void cast(int writer) throws Exception;
    }

    Votes(ElasticsearchClient es, String index) {
        this.es = es;
        this.index = index;
    }

    void reset(String id) throws Exception {
        es.index(i -> i.index(index).id(id).document(new Counter(0)));
    }

    /** A document with the vote count and {@value #UNMAPPED_FIELDS} fields {@link Tally} does not map. */
    void resetWide(String id) throws Exception {
        Map<String, Object> doc = wideDocument();
        es.index(i -> i.index(index).id(id).document(doc));
    }

    /** Indexes {@code n} documents {@code prefix0..}, plain or wide, in one bulk request, and refreshes. */
    void resetAll(String prefix, int n, boolean wide) throws Exception {
        Map<String, Object> doc = wide ? wideDocument() : Map.of("votes", 0);
        es.bulk(b -> {
            for (int d = 0; d < n; d++) {
                String id = prefix + d;
                b.operations(o -> o.index(i -> i.index(index).id(id).document(doc)));
            }
            return b;
        });
        es.indices().refresh(r -> r.index(index));
    }

    private static Map<String, Object> wideDocument() {
        Map<String, Object> doc = new LinkedHashMap<>();
        doc.put("_class", "com.example.Design");
        doc.put("votes", 0);
        doc.put("name", "elasticsearch");
        doc.put("owner", Map.of("team", "search", "pager", Map.of("primary", "ann", "secondary", "bob")));
        doc.put("tags", List.of("a", "b", "c"));
        doc.put("archived", false);
        doc.put("rank", 0);
        doc.put("created", "2026-12-04T12:00:00Z");
        doc.put("comments", List.of(Map.of("text", "first", "by", "ann"), Map.of("text", "second", "by", "bob")));
        doc.put("price", Map.of("amount", "12.50", "currency", "EUR"));
        doc.put("note", "from the billing service");
        return doc;
    }

    /** The naive loop's vote: read, increment, write unconditionally (a write in between is lost). */
    void naiveVote(String id) throws Exception {
        Counter c = es.get(g -> g.index(index).id(id), Counter.class).source();
        es.index(i -> i.index(index).id(id).document(c.vote()));
    }

    long count(String id) throws Exception {
        return es.get(g -> g.index(index).id(id), Counter.class).source().votes();
    }

    long countWide(String id) throws Exception {
        return es.get(g -> g.index(index).id(id), Tally.class).source().votes();
    }

    long seqNo(String id) throws Exception {
        return es.get(g -> g.index(index).id(id), ObjectNode.class).seqNo();
    }

    static long timed(Timer.Action action) throws Exception {
        long start = System.nanoTime();
        action.run();
        return System.nanoTime() - start;
    }

    static long median(long[] values) {
        long[] sorted = values.clone();
        Arrays.sort(sorted);
        return sorted[sorted.length / 2];
    }

    /** Wall time of {@code n} writers released together, each casting {@code each} votes. */
    static long writers(int n, int each, Vote vote) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(n);
        CyclicBarrier start = new CyclicBarrier(n + 1);
        try {
            List<Future<?>> futures = new ArrayList<>();
            for (int w = 0; w < n; w++) {
                int writer = w;
                futures.add(pool.submit(() -> {
                    start.await();
                    for (int i = 0; i < each; i++) {
                        vote.cast(writer);
                    }
                    return null;
                }));
            }
            start.await();
            long t0 = System.nanoTime();
            for (Future<?> f : futures) {
                f.get(10, TimeUnit.MINUTES);
            }
            return System.nanoTime() - t0;
        } finally {
            pool.shutdownNow();
        }
    }
}
