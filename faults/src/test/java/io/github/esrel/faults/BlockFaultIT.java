package io.github.esrel.faults;

import static org.assertj.core.api.Assertions.assertThat;

import co.elastic.clients.elasticsearch.ElasticsearchClient;
import co.elastic.clients.elasticsearch.core.BulkResponse;
import co.elastic.clients.elasticsearch.core.bulk.BulkOperation;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.github.esrel.denorm.Checkpoint;
import io.github.esrel.denorm.JobState;
import io.github.esrel.denorm.Progress;
import io.github.esrel.denorm.PropagationException;
import io.github.esrel.denorm.PropagationListener;
import io.github.esrel.denorm.PropagationResult;
import io.github.esrel.denorm.Propagator;
import io.github.esrel.denorm.Relation;
import io.github.esrel.occ.BulkOutcome;
import io.github.esrel.occ.BulkUpdate;
import io.github.esrel.occ.Occ;
import io.github.esrel.occ.OccBulkException;
import io.github.esrel.occ.OccListener;
import io.github.esrel.occ.Outcome;
import io.github.esrel.retry.Backoff;
import io.github.esrel.retry.RetryPolicy;
import io.github.esrel.testenv.Cluster;
import io.github.esrel.testenv.EsCluster;
import io.github.esrel.testenv.EsrelTest;
import java.io.IOException;
import java.io.StringReader;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.elasticsearch.client.Request;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Jobs that meet an index block set through the API mid-way: {@code index.blocks.read_only} (403) and the
 * flood-stage {@code index.blocks.read_only_allow_delete} (429, which Elasticsearch sets itself when a disk
 * fills). A propagation stops naming the block and the index, with a checkpoint a resume continues once the
 * block is lifted; when a 429 block is lifted while the job still retries, the job completes by itself. A
 * bulk optimistic update reports every item the block refused (with the block and the index) and writes the
 * rest; running the refused items again after the lift completes it. Nothing acknowledged is lost, nothing is
 * applied twice.
 */
@EsrelTest
class BlockFaultIT {

    private static final int CHILDREN = 20_000;
    private static final int COUNTERS = 2_000;
    private static final AtomicInteger PREFIX = new AtomicInteger();

    @Cluster
    static final EsCluster cluster = FaultCluster.build();

    private final ElasticsearchClient es = cluster.client();

    @ParameterizedTest(name = "{0}")
    @CsvSource({"index.blocks.read_only, index read-only", "index.blocks.read_only_allow_delete, read-only-allow-delete"
    })
    void shouldStopAPropagationAtABlockNamingItAndFinishWhenResumedAfterTheLift(String block, String blockName)
            throws Exception {
        String px = "prop" + PREFIX.incrementAndGet();
        Relation relation = propagationFixture(px);
        AtomicBoolean blocked = new AtomicBoolean();
        Propagator p = Propagator.of(b -> b.client(es)
                .relation(relation)
                .batchSize(1000)
                // Quick to give up: a block that stays is what this test is about.
                .retryPolicy(RetryPolicy.of(r -> r.maxAttempts(4).backoff(Backoff.fixed(Duration.ofMillis(100)))))
                .listener(blockAt(CHILDREN / 4, px + "-posts", block, blocked)));

        PropagationException stopped = null;
        try {
            p.propagate("1");
        } catch (PropagationException e) {
            stopped = e;
        }
        assertThat(blocked).as("the block was set mid-job").isTrue();
        assertThat(stopped).as("the job stops at the block").isNotNull();
        System.out.println("propagation at " + block + ": " + stopped.getMessage());
        assertThat(stopped.getMessage())
                .contains("cluster_block_exception", blockName, "[" + px + "-posts]", "resume job");
        Checkpoint c = p.unfinished().stream().findFirst().orElseThrow();
        String jobId = c.jobId();
        assertThat(c.state()).isEqualTo(JobState.FAILED);
        assertThat(c.error()).contains(blockName, "[" + px + "-posts]");
        assertThat(c.counts().written())
                .as("pages before the block were written")
                .isBetween(1L, CHILDREN - 1L);

        long lifted = System.nanoTime();
        setBlock(px + "-posts", block, false);
        PropagationResult r = p.resume(jobId);

        long stale = countOldChildren(px);
        long children = childCount(px);
        System.out.println("resumed after lifting " + block + ": " + r);
        Faults.figure(
                block + " (stays until lifted)",
                "propagation of " + CHILDREN + " children, resumed after the lift",
                r.counts().written(),
                stale + Math.abs(CHILDREN - children),
                Faults.millisSince(lifted));
        assertThat(r.state()).as(r.toString()).isEqualTo(JobState.COMPLETED);
        assertThat(stale).as("children left with the old value").isZero();
        assertThat(children).isEqualTo(CHILDREN);
    }

    @Test
    void shouldCompleteAPropagationByItselfWhenAFloodStageBlockIsLiftedWhileItRetries() throws Exception {
        String px = "flood" + PREFIX.incrementAndGet();
        Relation relation = propagationFixture(px);
        String block = "index.blocks.read_only_allow_delete";
        AtomicBoolean blocked = new AtomicBoolean();
        AtomicLong liftedAt = new AtomicLong();
        PropagationListener setAndLift = new PropagationListener() {
            final PropagationListener set = blockAt(CHILDREN / 4, px + "-posts", block, blocked);

            @Override
            public void onProgress(Progress pr) {
                set.onProgress(pr);
            }

            @Override
            public void onRejected(String jobId, int documents, Duration backoff) {
                // Lifted from another thread, as an operator freeing disk space would, while the job backs off.
                if (liftedAt.compareAndSet(0, System.nanoTime())) {
                    CompletableFuture.runAsync(() -> setBlock(px + "-posts", block, false));
                }
            }
        };
        Propagator p = Propagator.of(b -> b.client(es)
                .relation(relation)
                .batchSize(1000)
                .listener(setAndLift)
                // Patient enough (about 30 s) for the lift to land on a busy machine.
                .retryPolicy(RetryPolicy.of(r -> r.maxAttempts(20)
                        .backoff(Backoff.exponential(Duration.ofMillis(50), 2.0, Duration.ofSeconds(2))))));

        PropagationResult r = p.propagate("1");

        long stale = countOldChildren(px);
        Faults.figure(
                block + " (lifted while retrying)",
                "propagation of " + CHILDREN + " children, completed by itself",
                r.counts().written(),
                stale,
                liftedAt.get() == 0 ? -1 : Faults.millisSince(liftedAt.get()));
        System.out.println("propagation through a lifted flood-stage block: " + r);
        assertThat(blocked).isTrue();
        assertThat(r.counts().rejected()).as("the job met the block").isPositive();
        assertThat(r.state()).as(r.toString()).isEqualTo(JobState.COMPLETED);
        assertThat(r.counts().written()).isEqualTo(CHILDREN);
        assertThat(stale).isZero();
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource({"index.blocks.read_only, index read-only", "index.blocks.read_only_allow_delete, read-only-allow-delete"
    })
    void shouldReportEveryItemABlockRefusedAndWriteTheRestOnceLifted(String block, String blockName) throws Exception {
        String counters = "counters" + PREFIX.incrementAndGet();
        es.indices()
                .create(c ->
                        c.index(counters).settings(s -> s.numberOfShards("3").numberOfReplicas("1")));
        List<BulkOperation> ops = new ArrayList<>();
        for (int i = 0; i < COUNTERS; i++) {
            String id = "c" + i;
            ops.add(BulkOperation.of(o -> o.index(x -> x.index(counters).id(id).document(Map.of("n", 0)))));
        }
        assertThat(es.bulk(b -> b.operations(ops).refresh(co.elastic.clients.elasticsearch._types.Refresh.True))
                        .errors())
                .isFalse();
        AtomicInteger updated = new AtomicInteger();
        AtomicBoolean blocked = new AtomicBoolean();
        // Mid-job: outcomes are told as each bulk's answer comes in, so the bulks after the half meet the block.
        OccListener blockAtHalf = new OccListener() {
            @Override
            public void onOutcome(Outcome<?> o) {
                if (o.status() == Outcome.Status.UPDATED
                        && updated.incrementAndGet() == COUNTERS / 2
                        && blocked.compareAndSet(false, true)) {
                    setBlock(counters, block, true);
                }
            }
        };
        Occ occ = Occ.of(b -> b.client(es)
                .listener(blockAtHalf)
                .retryPolicy(RetryPolicy.of(r -> r.maxAttempts(3).backoff(Backoff.fixed(Duration.ofMillis(100))))));
        BulkUpdate<ObjectNode> first = occ.bulk(ObjectNode.class).batchSize(200);
        for (int i = 0; i < COUNTERS; i++) {
            first.update(
                    counters,
                    "c" + i,
                    doc -> doc.deepCopy().put("n", doc.path("n").asInt() + 1));
        }

        BulkOutcome<ObjectNode> outcome = first.tryExecute();

        System.out.println("bulk update at " + block + ": " + outcome);
        List<Integer> refused = new ArrayList<>();
        for (int i = 0; i < COUNTERS; i++) {
            Outcome<ObjectNode> o = outcome.item(i);
            if (o.status() == Outcome.Status.FAILED) {
                refused.add(i);
                assertThat(o.error())
                        .as(o.describe())
                        .contains("cluster_block_exception", blockName, "[" + counters + "]");
            } else {
                assertThat(o.status()).as(o.describe()).isEqualTo(Outcome.Status.UPDATED);
            }
        }
        assertThat(blocked).as("the block was set mid-job").isTrue();
        assertThat(refused).as("items after the block").isNotEmpty().hasSizeLessThan(COUNTERS);
        assertThat(new OccBulkException(outcome).getMessage())
                .as("what execute() throws")
                .contains(blockName, "[" + counters + "]");
        System.out.println("  first refused: " + outcome.item(refused.get(0)).describe());

        long lifted = System.nanoTime();
        setBlock(counters, block, false);
        BulkUpdate<ObjectNode> again = occ.bulk(ObjectNode.class).batchSize(200);
        refused.forEach(i -> again.update(
                counters, "c" + i, doc -> doc.deepCopy().put("n", doc.path("n").asInt() + 1)));
        BulkOutcome<ObjectNode> second = again.execute();

        es.indices().refresh(x -> x.index(counters));
        long wrong = 0;
        for (int from = 0; from < COUNTERS; from += 1000) {
            List<String> ids = new ArrayList<>();
            for (int i = from; i < Math.min(COUNTERS, from + 1000); i++) {
                ids.add("c" + i);
            }
            wrong += es.mget(m -> m.index(counters).ids(ids), ObjectNode.class).docs().stream()
                    .filter(d -> d.result().source().path("n").asInt() != 1)
                    .count();
        }
        Faults.figure(
                block + " (bulk OCC update)",
                "bulk optimistic update of " + COUNTERS + " documents",
                COUNTERS - refused.size() + second.count(Outcome.Status.UPDATED),
                wrong,
                Faults.millisSince(lifted));
        assertThat(second.count(Outcome.Status.UPDATED)).isEqualTo(refused.size());
        assertThat(wrong).as("counters not incremented exactly once").isZero();
    }

    /** A user, its children with the old copy, and the user renamed: the relation to propagate. */
    private Relation propagationFixture(String px) throws IOException {
        String users = px + "-users";
        String posts = px + "-posts";
        es.indices()
                .create(c -> c.index(users).settings(s -> s.numberOfShards("1").numberOfReplicas("1")));
        es.indices().create(c -> c.index(posts).withJson(new StringReader("""
            {"settings": {"number_of_shards": 3, "number_of_replicas": 1},
             "mappings": {"properties": {"user": {"properties": {"id": {"type": "keyword"}, "name": {"type": "keyword"}}}}}}""")));
        es.index(i -> i.index(users).id("1").document(Map.of("name", "John Smith")));
        for (int from = 0; from < CHILDREN; from += 5000) {
            List<BulkOperation> ops = new ArrayList<>();
            for (int i = from; i < Math.min(CHILDREN, from + 5000); i++) {
                ObjectNode doc = JsonNodeFactory.instance.objectNode().put("title", "post " + i);
                doc.putObject("user").put("id", "1").put("name", "John Smith");
                String id = "p" + i;
                ops.add(BulkOperation.of(o -> o.index(x -> x.index(posts).id(id).document(doc))));
            }
            BulkResponse r = es.bulk(b -> b.operations(ops));
            assertThat(r.errors()).as("fixture bulk").isFalse();
        }
        es.indices().refresh(r -> r.index(posts));
        es.index(i -> i.index(users).id("1").document(Map.of("name", "John Q. Smith")));
        return Relation.of(r -> r.name(px + "-author")
                .parentIndex(users)
                .childIndex(posts)
                .parentIdField("user.id")
                .copy("name", "user.name"));
    }

    /** Sets the block on the job's thread once {@code done} children are done: the next pages meet it. */
    private PropagationListener blockAt(long done, String index, String block, AtomicBoolean blocked) {
        return new PropagationListener() {
            @Override
            public void onProgress(Progress pr) {
                if (pr.counts().done() >= done && blocked.compareAndSet(false, true)) {
                    setBlock(index, block, true);
                }
            }
        };
    }

    /** Sets or lifts an index block through the settings API, as an operator (or the disk monitor) does. */
    private void setBlock(String index, String block, boolean on) {
        Request put = new Request("PUT", "/" + index + "/_settings");
        put.setJsonEntity("{\"" + block + "\": " + (on ? "true" : "null") + "}");
        try {
            cluster.restClient().performRequest(put);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private long countOldChildren(String px) throws IOException {
        es.indices().refresh(r -> r.index(px + "-posts"));
        return es.count(c -> c.index(px + "-posts")
                        .query(q -> q.term(t -> t.field("user.name").value("John Smith"))))
                .count();
    }

    private long childCount(String px) throws IOException {
        return es.count(c -> c.index(px + "-posts")).count();
    }
}
