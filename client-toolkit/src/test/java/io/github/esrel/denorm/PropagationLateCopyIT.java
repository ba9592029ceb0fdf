package io.github.esrel.denorm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import co.elastic.clients.elasticsearch.ElasticsearchClient;
import co.elastic.clients.elasticsearch._types.ElasticsearchException;
import co.elastic.clients.elasticsearch.core.IndexRequest;
import io.github.esrel.ReplayingTransport;
import io.github.esrel.testenv.Cluster;
import io.github.esrel.testenv.EsCluster;
import io.github.esrel.testenv.EsrelTest;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * Checkpoint requests applied twice or late (issue 42): a copy of a job's earlier checkpoint, replayed as the very
 * request the job sent ({@link ReplayingTransport}), after the job completed; a claim whose request is applied twice;
 * a run whose job another process claimed meanwhile.
 */
@EsrelTest
class PropagationLateCopyIT {

    @Cluster
    static final EsCluster cluster = EsCluster.builder().shared().build();

    private static final AtomicInteger PREFIX = new AtomicInteger();

    private final ElasticsearchClient es = cluster.client();
    private final ReplayingTransport transport = ReplayingTransport.of(es);

    private Blog blog() throws IOException {
        return new Blog(es, "lateblog" + PREFIX.incrementAndGet());
    }

    /** The checkpoint writes sent so far, in order. */
    private List<ReplayingTransport.Sent> checkpointWrites(String checkpointIndex) {
        return transport.sent(
                s -> s.request() instanceof IndexRequest<?> r && r.index().equals(checkpointIndex));
    }

    @Test
    void shouldRefuseALateCopyOfARunningCheckpointAfterTheJobCompleted() throws Exception {
        Blog blog = blog();
        String checkpoints = blog.users + "-checkpoints";
        blog.user("1", "John Smith");
        blog.posts("1", "John Smith", "p", 300);
        blog.user("1", "John Q. Smith");
        Propagator p = Propagator.of(b -> b.client(transport.client())
                .relation(blog.relation())
                .checkpointIndex(checkpoints)
                .staleAfter(Duration.ZERO)
                .batchSize(100)
                .checkpointInterval(Duration.ZERO));

        PropagationResult r = p.propagate("1");
        assertThat(r.state()).isEqualTo(JobState.COMPLETED);
        List<ReplayingTransport.Sent> writes = checkpointWrites(checkpoints);
        assertThat(writes.size()).as("checkpoint writes of the job").isGreaterThan(2);

        // The first heartbeat (RUNNING), run late by a node that held it: it would make the completed job look crashed.
        assertThatThrownBy(() -> transport.replay(writes.get(0)))
                .isInstanceOfSatisfying(
                        ElasticsearchException.class,
                        e -> assertThat(e.status()).isEqualTo(409));

        Checkpoint after = p.checkpoint(r.jobId()).orElseThrow();
        assertThat(after.state()).isEqualTo(JobState.COMPLETED);
        assertThat(after.counts().written()).isEqualTo(300);
        assertThat(p.unfinished()).isEmpty();
    }

    @Test
    void shouldTakeAClaimWhoseRequestWasAppliedTwiceAsItsOwn() throws Exception {
        Blog blog = blog();
        String checkpoints = blog.users + "-checkpoints";
        blog.user("1", "John Smith");
        blog.posts("1", "John Smith", "p", 300);
        blog.user("1", "John R. Smith");
        CountDownLatch progressed = new CountDownLatch(1);
        Propagator first = Propagator.of(b -> b.client(es)
                .relation(blog.relation())
                .checkpointIndex(checkpoints)
                .batchSize(50)
                .maxDocsPerSecond(100)
                .listener(new PropagationListener() {
                    @Override
                    public void onProgress(Progress pr) {
                        progressed.countDown();
                    }
                }));
        PropagationJob job = first.start("1");
        assertThat(progressed.await(60, TimeUnit.SECONDS)).isTrue();
        job.cancel();
        assertThat(job.await().state()).isEqualTo(JobState.CANCELLED);

        Propagator second = Propagator.of(
                b -> b.client(transport.client()).relation(blog.relation()).checkpointIndex(checkpoints));
        // The claim is applied, its answer lost, and the same request sent again: refused (409) by its own first copy.
        transport.sendTwice(
                s -> s.request() instanceof IndexRequest<?> r && r.index().equals(checkpoints));
        PropagationResult resumed = second.resume(job.id());

        assertThat(resumed.state()).isEqualTo(JobState.COMPLETED);
        assertThat(second.checkpoint(job.id()).orElseThrow().owner()).isEqualTo(second.owner());
        blog.all().values().forEach(h -> assertThat(Blog.name(h)).isEqualTo("John R. Smith"));
    }

    @Test
    void shouldStopARunWhoseJobAnotherProcessClaimed() throws Exception {
        Blog blog = blog();
        String checkpoints = blog.users + "-checkpoints";
        int n = 600;
        blog.user("1", "John Smith");
        blog.posts("1", "John Smith", "p", n);
        blog.user("1", "John S. Smith");
        CountDownLatch progressed = new CountDownLatch(1);
        // A slow run, as one whose process froze: its heartbeat looks stale to the other process at once.
        Propagator slow = Propagator.of(b -> b.client(es)
                .relation(blog.relation())
                .checkpointIndex(checkpoints)
                .batchSize(50)
                .maxDocsPerSecond(50)
                .checkpointInterval(Duration.ZERO)
                .listener(new PropagationListener() {
                    @Override
                    public void onProgress(Progress pr) {
                        progressed.countDown();
                    }
                }));
        PropagationJob job = slow.start("1");
        assertThat(progressed.await(60, TimeUnit.SECONDS)).isTrue();

        Propagator other = Propagator.of(b -> b.client(es)
                .relation(blog.relation())
                .checkpointIndex(checkpoints)
                .staleAfter(Duration.ZERO));
        PropagationResult taken = null;
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (taken == null) {
            try {
                taken = other.resume(job.id());
            } catch (PropagationException e) {
                // The slow run checkpointed between the claim's read and its write: the claim lost that race.
                assertThat(e.getMessage()).contains("claimed by another process just now");
                assertThat(System.nanoTime()).as("a claim got through").isLessThan(deadline);
            }
        }

        assertThat(taken.state()).isEqualTo(JobState.COMPLETED);
        assertThatThrownBy(job::await).isInstanceOfSatisfying(PropagationException.class, e -> {
            assertThat(e.status()).isEqualTo(409);
            assertThat(e.getMessage()).contains("taken over by " + other.owner());
        });
        Checkpoint stored = other.checkpoint(job.id()).orElseThrow();
        assertThat(stored.state()).as("the claim's run wrote last").isEqualTo(JobState.COMPLETED);
        assertThat(stored.owner()).isEqualTo(other.owner());
        blog.all().values().forEach(h -> assertThat(Blog.name(h)).isEqualTo("John S. Smith"));
    }
}
