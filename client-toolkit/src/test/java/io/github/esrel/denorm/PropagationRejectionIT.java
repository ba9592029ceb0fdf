package io.github.esrel.denorm;

import static org.assertj.core.api.Assertions.assertThat;

import co.elastic.clients.elasticsearch.ElasticsearchClient;
import co.elastic.clients.elasticsearch._types.ElasticsearchException;
import co.elastic.clients.elasticsearch.core.BulkResponse;
import co.elastic.clients.elasticsearch.core.bulk.BulkOperation;
import co.elastic.clients.elasticsearch.core.bulk.BulkResponseItem;
import co.elastic.clients.elasticsearch.core.search.Hit;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.github.esrel.TestTags;
import io.github.esrel.doc.DocStream;
import io.github.esrel.testenv.Cluster;
import io.github.esrel.testenv.EsCluster;
import io.github.esrel.testenv.EsrelTest;
import java.io.IOException;
import java.io.InputStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.elasticsearch.client.Request;
import org.elasticsearch.client.Response;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The 429 path of a propagation against genuine {@code es_rejected_execution_exception} rejections of
 * a real node, not simulated ones.
 *
 * <p>How the node is made to reject: its {@code write} thread pool has one thread and a queue of one.
 * A {@code _bulk} is split into one shard-level request per shard it touches, all dispatched at once
 * to that pool: one runs, one waits, the others are rejected and their items come back with 429 while
 * the rest are written. The job streams children sorted by {@code _shard_doc}, so a page (= one bulk)
 * holds consecutive shards: with {@value #CHILDREN} children over {@value #SHARDS} shards (about 250
 * each) a page of 1000 (the default batch size) touches 4 or 5 shards, enough to have some of them
 * rejected; with fewer, larger shards a page would touch one shard and nothing would be rejected.
 *
 * <p>In the first test nothing else writes meanwhile (the job is sequential), so each resend round
 * writes at least one shard's items and every child gets through within as many attempts as its page
 * touched shards, under the default policy's 10: it needs neither timing luck nor a custom retry
 * policy. The second keeps the write pool full from another client during the whole job, so that
 * also the job's own bookkeeping (its checkpoint writes) meets 429s and must ride them out.
 */
@EsrelTest
@Tag(TestTags.LOAD)
class PropagationRejectionIT {

    private static final int SHARDS = 12;
    private static final int CHILDREN = 3000;

    @Cluster
    static final EsCluster cluster = EsCluster.builder()
            .setting("thread_pool.write.size", "1")
            .setting("thread_pool.write.queue_size", "1")
            .build();

    private final ElasticsearchClient es = cluster.client();

    /** Every bulk as sent and what of it was rejected, in order (listener calls come on the job's thread). */
    static final class Rejections implements PropagationListener {
        final List<Integer> sent = new CopyOnWriteArrayList<>();
        final List<Integer> rejectedPerBulk = new CopyOnWriteArrayList<>();
        final List<Duration> backoffs = new CopyOnWriteArrayList<>();
        final List<ChildFailure> failures = new CopyOnWriteArrayList<>();

        @Override
        public void beforeBulk(String jobId, int pass, int documents) {
            sent.add(documents);
            rejectedPerBulk.add(0);
        }

        @Override
        public void onRejected(String jobId, int documents, Duration backoff) {
            rejectedPerBulk.set(rejectedPerBulk.size() - 1, documents);
            backoffs.add(backoff);
        }

        @Override
        public void onFailure(String jobId, ChildFailure failure) {
            failures.add(failure);
        }

        long rejected() {
            return rejectedPerBulk.stream().mapToLong(Integer::longValue).sum();
        }

        long sentTotal() {
            return sent.stream().mapToLong(Integer::longValue).sum();
        }

        /** Bulks in which some items were rejected and others written: only item-level 429s do that. */
        long partlyRejectedBulks() {
            long n = 0;
            for (int i = 0; i < sent.size(); i++) {
                if (rejectedPerBulk.get(i) > 0 && rejectedPerBulk.get(i) < sent.get(i)) {
                    n++;
                }
            }
            return n;
        }
    }

    @Test
    void shouldResendEveryChildRejectedWith429AndLoseNone() throws Exception {
        JsonNode pool = writePool();
        assertThat(pool.path("size").asInt())
                .as("the node runs with the tiny write pool this test relies on")
                .isEqualTo(1);
        assertThat(pool.path("queue_size").asInt())
                .as("the node runs with the tiny write pool this test relies on")
                .isEqualTo(1);
        String users = "rej-users";
        String posts = "rej-posts";
        es.indices()
                .create(c -> c.index(users).settings(s -> s.numberOfShards("1").numberOfReplicas("0")));
        es.indices()
                .create(c -> c.index(posts)
                        .settings(x -> x.numberOfShards(String.valueOf(SHARDS)).numberOfReplicas("0"))
                        .mappings(m -> m.properties(
                                "user", u -> u.object(o -> o.properties("id", k -> k.keyword(kw -> kw))))));
        indexUser(users, "1", "John Smith");
        Map<String, ObjectNode> seeded = new HashMap<>();
        for (int i = 0; i < CHILDREN; i++) {
            seeded.put("p" + i, Blog.post("1", "John Smith", i));
        }
        long fixtureRejections = loadResendingRejections(posts, seeded);
        indexUser(users, "1", "John Q. Smith");

        Rejections rec = new Rejections();
        Relation relation = Relation.of(r -> r.name("post-author")
                .parentIndex(users)
                .childIndex(posts)
                .parentIdField("user.id")
                .copy("name", "user.name")
                .copy("email", "user.email"));
        long poolRejectedBefore = writePoolRejected();
        // One bulk in flight: the recorder attributes each rejection to the bulk sent last, so bulks must not overlap.
        // One slice: each bulk then spans every shard, more shard-level writes than the tiny pool takes, which is what
        // makes the item-level 429s; a slice's bulk would touch only its own shard or two.
        PropagationResult r = Propagator.of(b -> b.client(es)
                        .relation(relation)
                        .checkpointIndex("rej-propagation")
                        .bulksInFlight(1)
                        .slices(1)
                        .listener(rec))
                .propagate("1");
        long poolRejectedByJob = writePoolRejected() - poolRejectedBefore;

        System.out.println("propagation under write rejections: " + r);
        System.out.println("  429 resends: " + r.counts().rejected() + " child writes in " + rec.sent.size()
                + " bulks ("
                + rec.partlyRejectedBulks() + " partly rejected); shard-level requests the write pool rejected: "
                + poolRejectedByJob + "; while loading the fixture: " + fixtureRejections + " rejected items");
        r.failures().forEach(f -> System.out.println("  " + f));

        // Nothing failed and nothing was lost...
        assertThat(r.state()).as(r.toString()).isEqualTo(JobState.COMPLETED);
        assertThat(r.counts().failed()).isZero();
        assertThat(r.failures()).isEmpty();
        assertThat(rec.failures).isEmpty();
        assertThat(r.counts().written()).isEqualTo(CHILDREN);
        assertThat(r.counts().done()).isEqualTo(CHILDREN);
        assertThat(r.counts().total()).isEqualTo(CHILDREN);
        assertThat(r.counts().conflicts()).as("nobody else edits the children").isZero();
        // ... although the node rejected writes, which the job resent after a backoff ...
        assertThat(poolRejectedByJob)
                .as("es_rejected_execution_exception from the write pool during the job")
                .isPositive();
        assertThat(r.counts().rejected())
                .as("429 resends in the result")
                .isPositive()
                .isEqualTo(rec.rejected());
        assertThat(rec.partlyRejectedBulks())
                .as("bulks with item-level 429s next to written items")
                .isPositive();
        assertThat(rec.backoffs).allSatisfy(d -> assertThat(d).isPositive());
        assertThat(rec.sentTotal())
                .as("each child sent once, plus once again per 429")
                .isEqualTo(CHILDREN + r.counts().rejected());
        // ... and every child now carries the new copies and still everything else.
        Map<String, Hit<ObjectNode>> after = all(posts);
        assertThat(after).hasSize(CHILDREN);
        for (Map.Entry<String, ObjectNode> e : seeded.entrySet()) {
            ObjectNode post = after.get(e.getKey()).source();
            assertThat(post.path("user").path("name").asText()).as(e.getKey()).isEqualTo("John Q. Smith");
            assertThat(post.path("user").path("email").asText()).as(e.getKey()).isEqualTo("john.q..smith@example.com");
            assertThat(post.path("esrel").path("post-author").asLong())
                    .as(e.getKey())
                    .isEqualTo(r.parentSeqNo());
            assertThat(post.path("title")).as(e.getKey()).isEqualTo(e.getValue().path("title"));
        }
    }

    @Test
    void shouldFinishItsJobWhileAnotherClientKeepsTheWritePoolFull() throws Exception {
        String users = "rej-users-busy";
        String posts = "rej-posts-busy";
        String noise = "rej-noise";
        int children = 1500;
        es.indices()
                .create(c -> c.index(users).settings(s -> s.numberOfShards("1").numberOfReplicas("0")));
        es.indices()
                .create(c -> c.index(noise).settings(s -> s.numberOfShards("3").numberOfReplicas("0")));
        es.indices()
                .create(c -> c.index(posts)
                        .settings(x -> x.numberOfShards("6").numberOfReplicas("0"))
                        .mappings(m -> m.properties(
                                "user", u -> u.object(o -> o.properties("id", k -> k.keyword(kw -> kw))))));
        indexUser(users, "2", "Mary Jones");
        Map<String, ObjectNode> seeded = new HashMap<>();
        for (int i = 0; i < children; i++) {
            seeded.put("b" + i, Blog.post("2", "Mary Jones", i));
        }
        loadResendingRejections(posts, seeded);
        indexUser(users, "2", "Mary Jones-Smith");

        // Two other clients write as fast as the node lets them, rejections and all, until the job is done.
        java.util.concurrent.atomic.AtomicBoolean stop = new java.util.concurrent.atomic.AtomicBoolean();
        java.util.concurrent.atomic.AtomicLong noiseRejected = new java.util.concurrent.atomic.AtomicLong();
        java.util.concurrent.atomic.AtomicLong noiseBulks = new java.util.concurrent.atomic.AtomicLong();
        Runnable noisy = () -> {
            String me = Thread.currentThread().getName();
            for (int n = 0; !stop.get(); n++) {
                List<BulkOperation> ops = new ArrayList<>();
                for (int i = 0; i < 300; i++) {
                    String id = me + "-" + n + "-" + i;
                    ops.add(BulkOperation.of(
                            o -> o.index(x -> x.index(noise).id(id).document(Map.of("v", id)))));
                }
                try {
                    BulkResponse resp = es.bulk(b -> b.operations(ops));
                    noiseRejected.addAndGet(resp.items().stream()
                            .filter(it -> it.status() == 429)
                            .count());
                } catch (ElasticsearchException e) {
                    noiseRejected.addAndGet(e.status() == 429 ? ops.size() : 0);
                } catch (IOException e) {
                    return;
                }
                noiseBulks.incrementAndGet();
            }
        };
        List<Thread> writers = List.of(new Thread(noisy, "noise-a"), new Thread(noisy, "noise-b"));
        writers.forEach(Thread::start);
        PropagationResult r;
        Propagator propagator;
        Rejections rec = new Rejections();
        try {
            long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            while (noiseBulks.get() < 3) {
                assertThat(System.nanoTime() - deadline)
                        .as("the noise writers send their first bulks within 60 s")
                        .isNegative();
                Thread.sleep(10);
            }
            Relation relation = Relation.of(x -> x.name("post-author")
                    .parentIndex(users)
                    .childIndex(posts)
                    .parentIdField("user.id")
                    .copy("name", "user.name")
                    .copy("email", "user.email"));
            // Patient: another client competes for the one write thread all along.
            io.github.esrel.retry.RetryPolicy patient = io.github.esrel.retry.RetryPolicy.of(p -> p.maxAttempts(60)
                    .backoff(io.github.esrel.retry.Backoff.exponentialWithJitter(
                            Duration.ofMillis(10), 2.0, Duration.ofMillis(300))));
            // Small pages, a checkpoint after each: the job's own bookkeeping writes meet the full pool too.
            propagator = Propagator.of(b -> b.client(es)
                    .relation(relation)
                    .checkpointIndex("rej-propagation-busy")
                    .batchSize(100)
                    .checkpointInterval(Duration.ZERO)
                    .retryPolicy(patient)
                    .listener(rec));
            r = propagator.propagate("2");
        } finally {
            stop.set(true);
            for (Thread w : writers) {
                w.join(60_000);
            }
        }
        System.out.println("propagation while another client fills the write pool: " + r + "; the other client's"
                + " rejected items: " + noiseRejected.get() + " in " + noiseBulks.get() + " bulks");

        assertThat(noiseRejected.get())
                .as("the other client was rejected too: the pool was full")
                .isPositive();
        assertThat(r.state()).as(r.toString()).isEqualTo(JobState.COMPLETED);
        assertThat(r.counts().failed()).isZero();
        assertThat(rec.failures).isEmpty();
        assertThat(r.counts().written()).isEqualTo(children);
        Map<String, Hit<ObjectNode>> after = all(posts);
        assertThat(after).hasSize(children);
        for (Map.Entry<String, ObjectNode> e : seeded.entrySet()) {
            ObjectNode post = after.get(e.getKey()).source();
            assertThat(post.path("user").path("name").asText()).as(e.getKey()).isEqualTo("Mary Jones-Smith");
            assertThat(post.path("esrel").path("post-author").asLong())
                    .as(e.getKey())
                    .isEqualTo(r.parentSeqNo());
            assertThat(post.path("title")).as(e.getKey()).isEqualTo(e.getValue().path("title"));
        }
        // The checkpoint tells the same story as the result.
        Checkpoint saved = propagator.checkpoint(r.jobId()).orElseThrow();
        assertThat(saved.state()).isEqualTo(JobState.COMPLETED);
        assertThat(saved.counts().written()).isEqualTo(children);
    }

    /**
     * The fixture's own parent writes, resent while the one-thread write pool rejects them: on a loaded machine the
     * pool can still be busy with the fixture's bulk loads (the job's 429 handling is what the tests check).
     */
    private void indexUser(String index, String id, String name) throws Exception {
        for (int attempt = 1; ; attempt++) {
            try {
                es.index(i -> i.index(index).id(id).document(user(name)));
                return;
            } catch (ElasticsearchException e) {
                if (e.status() != 429 || attempt >= 50) {
                    throw e;
                }
                Thread.sleep(100);
            }
        }
    }

    private static ObjectNode user(String name) {
        return JsonNodeFactory.instance
                .objectNode()
                .put("name", name)
                .put("email", name.toLowerCase().replace(' ', '.') + "@example.com");
    }

    /**
     * Indexes {@code docs}, resending the items the node rejects (the same pool limits the fixture),
     * and refreshes. Fails on any other item error, or on a rejection that is not the write pool's.
     *
     * @return the rejected items resent
     */
    private long loadResendingRejections(String index, Map<String, ObjectNode> docs) throws Exception {
        long rejected = 0;
        List<String> pending = new ArrayList<>(docs.keySet());
        for (int round = 1; !pending.isEmpty(); round++) {
            assertThat(round).as("fixture still rejected after 50 rounds").isLessThanOrEqualTo(50);
            List<String> again = new ArrayList<>();
            for (int from = 0; from < pending.size(); from += 1000) {
                List<String> ids = pending.subList(from, Math.min(pending.size(), from + 1000));
                List<BulkOperation> ops = ids.stream()
                        .map(id -> BulkOperation.of(
                                o -> o.index(x -> x.index(index).id(id).document(docs.get(id)))))
                        .toList();
                BulkResponse resp = es.bulk(b -> b.operations(ops));
                for (int i = 0; i < ids.size(); i++) {
                    BulkResponseItem item = resp.items().get(i);
                    if (item.error() == null) {
                        continue;
                    }
                    assertThat(item.status())
                            .as("fixture item %s: %s", ids.get(i), item.error())
                            .isEqualTo(429);
                    assertThat(item.error().type()).isEqualTo("es_rejected_execution_exception");
                    again.add(ids.get(i));
                }
            }
            rejected += again.size();
            pending = again;
            Thread.sleep(20);
        }
        es.indices().refresh(r -> r.index(index));
        return rejected;
    }

    /** The write pool of the node, from node info (raw JSON: the same on every client line). */
    private JsonNode writePool() throws IOException {
        return onlyNode("/_nodes/thread_pool").path("thread_pool").path("write");
    }

    private long writePoolRejected() throws IOException {
        return onlyNode("/_nodes/stats/thread_pool")
                .path("thread_pool")
                .path("write")
                .path("rejected")
                .asLong();
    }

    private static JsonNode onlyNode(String path) throws IOException {
        Response response = cluster.restClient().performRequest(new Request("GET", path));
        try (InputStream body = response.getEntity().getContent()) {
            return new ObjectMapper().readTree(body).path("nodes").elements().next();
        }
    }

    private Map<String, Hit<ObjectNode>> all(String index) throws IOException {
        es.indices().refresh(r -> r.index(index));
        Map<String, Hit<ObjectNode>> all = new HashMap<>();
        try (DocStream s = DocStream.of(b -> b.client(es).index(index).pageSize(5000))) {
            for (List<Hit<ObjectNode>> page = s.next(); !page.isEmpty(); page = s.next()) {
                page.forEach(h -> all.put(h.id(), h));
            }
        }
        return all;
    }
}
