package io.github.esrel.denorm;

import static org.assertj.core.api.Assertions.assertThat;

import co.elastic.clients.elasticsearch.ElasticsearchClient;
import co.elastic.clients.elasticsearch.core.search.Hit;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.github.esrel.occ.Occ;
import io.github.esrel.occ.Outcome;
import io.github.esrel.retry.RetryPolicy;
import io.github.esrel.testenv.Cluster;
import io.github.esrel.testenv.EsCluster;
import io.github.esrel.testenv.EsrelTest;
import java.io.IOException;
import java.io.StringReader;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/** Propagation read with a sliced point in time: one slice per shard of the child index (issue 14 §2b). */
@EsrelTest
class PropagationSlicesIT {

    @Cluster
    static final EsCluster cluster = EsCluster.builder().shared().build();

    private final ElasticsearchClient es = cluster.client();
    private static final AtomicInteger PREFIX = new AtomicInteger();
    /** One stream is the default: these jobs ask for slices, one per shard of a 6-shard index. */
    private static final int SLICES = 8;

    private Blog blog(int shards) throws IOException {
        return new Blog(es, "sliced" + PREFIX.incrementAndGet(), shards);
    }

    @Test
    void shouldUpdateEveryChildOfASixShardIndexAndKeepEveryConcurrentEdit() throws Exception {
        Blog blog = blog(6);
        int n = 3000;
        blog.user("1", "John Smith");
        blog.posts("1", "John Smith", "p", n);
        blog.user("1", "John Q. Smith");

        Occ occ = Occ.of(b -> b.client(es).retryPolicy(RetryPolicy.of(r -> r.maxAttempts(1000))));
        AtomicIntegerArray edits = new AtomicIntegerArray(n);
        AtomicBoolean stop = new AtomicBoolean();
        PropagationIT.Recorder rec = new PropagationIT.Recorder();
        Propagator p = Propagator.of(b -> b.client(es)
                .slices(SLICES)
                .relation(blog.relation())
                .batchSize(100)
                .maxDocsPerSecond(2000)
                .bulksInFlight(3)
                .listener(rec));
        ExecutorService pool = Executors.newFixedThreadPool(3);
        try {
            List<Future<?>> editors = new ArrayList<>();
            for (int w = 0; w < 3; w++) {
                long seed = w;
                editors.add(pool.submit(() -> {
                    Random rnd = new Random(seed);
                    while (!stop.get()) {
                        int i = rnd.nextInt(n);
                        Outcome<ObjectNode> o = occ.update(blog.posts, "p" + i, ObjectNode.class, doc -> {
                            ObjectNode c = doc.deepCopy();
                            c.put("edits", c.path("edits").asInt() + 1);
                            return c;
                        });
                        if (o.status() == Outcome.Status.UPDATED) {
                            edits.incrementAndGet(i);
                        }
                    }
                    return null;
                }));
            }
            PropagationResult r = p.propagate("1");
            stop.set(true);
            for (Future<?> f : editors) {
                f.get(60, TimeUnit.SECONDS);
            }

            assertThat(r.state()).isEqualTo(JobState.COMPLETED);
            assertThat(r.counts().failed()).isZero();
            assertThat(r.counts().written()).isEqualTo(n);
            assertThat(r.counts().done())
                    .as("each child read by one slice only")
                    .isEqualTo(n);
            assertThat(r.counts().total()).isEqualTo(n);
            assertThat(p.checkpoint(r.jobId()).orElseThrow().slices())
                    .as("read with one slice per shard")
                    .hasSize(6)
                    .allMatch(Checkpoint.Slice::finished);
            Map<String, Hit<ObjectNode>> all = blog.all();
            assertThat(all).hasSize(n);
            int editsSeen = 0;
            for (int i = 0; i < n; i++) {
                Hit<ObjectNode> h = all.get("p" + i);
                assertThat(Blog.name(h)).as("p%d", i).isEqualTo("John Q. Smith");
                assertThat(h.source().path("edits").asInt())
                        .as("every edit of p%d kept", i)
                        .isEqualTo(edits.get(i));
                editsSeen += edits.get(i);
            }
            assertThat(editsSeen).as("the editors did edit").isPositive();
            assertThat(r.counts().conflicts()).isEqualTo(rec.conflicts.get());
        } finally {
            stop.set(true);
            pool.shutdownNow();
        }
    }

    @Test
    void shouldResumeEverySliceOfAStoppedJobAndFinishWithExactCounts() throws Exception {
        Blog blog = blog(6);
        int n = 3000;
        blog.user("1", "John Smith");
        blog.posts("1", "John Smith", "p", n);
        blog.user("1", "John C. Smith");
        AtomicReference<PropagationJob> job = new AtomicReference<>();
        Propagator p = Propagator.of(b -> b.client(es)
                .slices(SLICES)
                .relation(blog.relation())
                .batchSize(100)
                .maxDocsPerSecond(1500)
                .listener(new PropagationListener() {
                    @Override
                    public void onProgress(Progress pr) {
                        PropagationJob j = job.get(); // null only if the first page is written before start() returns
                        if (j != null && pr.counts().done() >= 600) {
                            j.cancel();
                        }
                    }
                }));
        job.set(p.start("1"));
        PropagationResult cancelled = job.get().await();
        Checkpoint stopped = p.checkpoint(cancelled.jobId()).orElseThrow();

        assertThat(cancelled.state()).isEqualTo(JobState.CANCELLED);
        assertThat(stopped.state()).isEqualTo(JobState.CANCELLED);
        assertThat(cancelled.counts().written()).isBetween(600L, (long) n - 1);
        assertThat(stopped.slices()).hasSize(6);
        assertThat(stopped.slices().stream().mapToLong(Checkpoint.Slice::read).sum())
                .as("every child a slice read was handled before the job stopped")
                .isEqualTo(cancelled.counts().done());
        assertThat(stopped.counts()).isEqualTo(cancelled.counts());
        long stale = blog.all().values().stream()
                .filter(h -> Blog.name(h).equals("John Smith"))
                .count();
        assertThat(stale).isEqualTo(n - cancelled.counts().written());

        PropagationResult resumed = Propagator.of(
                        b -> b.client(es).slices(SLICES).relation(blog.relation()))
                .resume(cancelled.jobId());

        assertThat(resumed.state()).isEqualTo(JobState.COMPLETED);
        assertThat(resumed.counts().written()).as("no child written twice").isEqualTo(n);
        assertThat(resumed.counts().done()).isEqualTo(n);
        assertThat(resumed.counts().total()).isEqualTo(n);
        assertThat(resumed.counts().upToDate()).isZero();
        Checkpoint done = p.checkpoint(cancelled.jobId()).orElseThrow();
        assertThat(done.state()).isEqualTo(JobState.COMPLETED);
        assertThat(done.slices()).hasSize(6).allMatch(Checkpoint.Slice::finished);
        blog.all().values().forEach(h -> assertThat(Blog.name(h)).isEqualTo("John C. Smith"));
    }

    /** A job checkpointed before slices existed (no {@code slices} in its document) resumes with slices. */
    @Test
    void shouldResumeAJobCheckpointedByOneStream() throws Exception {
        Blog blog = blog(6);
        int n = 1200;
        blog.user("1", "John Smith");
        blog.posts("1", "John Smith", "p", n);
        blog.user("1", "John O. Smith");
        Propagator p = Propagator.of(b -> b.client(es).slices(SLICES).relation(blog.relation()));
        p.ensureCheckpointIndex();
        String jobId = "post-author:1:oldstyle" + PREFIX.incrementAndGet();
        es.index(i -> i.index("esrel-propagation").id(jobId).withJson(new StringReader("""
            {"relation": "post-author", "parent_id": "1", "state": "CANCELLED", "owner": "1@elsewhere:old",
             "parent_seq_no": 1, "total": %d, "done": 0, "written": 0, "up_to_date": 0, "moved": 0,
             "conflicts": 0, "rejected": 0, "failed": 0, "passes": 1,
             "started_at": 1764489600000, "updated_at": 1764489611000, "error": null}""".formatted(n))));

        PropagationResult r = p.resume(jobId);

        assertThat(r.state()).isEqualTo(JobState.COMPLETED);
        assertThat(r.counts().written()).isEqualTo(n);
        assertThat(r.counts().total()).isEqualTo(n);
        assertThat(p.checkpoint(jobId).orElseThrow().slices()).hasSize(6);
        blog.all().values().forEach(h -> assertThat(Blog.name(h)).isEqualTo("John O. Smith"));
    }

    @Test
    void shouldReadAOneShardIndexWithOneStreamAndHonourTheBound() throws Exception {
        Blog one = blog(1);
        one.user("1", "John Smith");
        one.posts("1", "John Smith", "p", 500);
        one.user("1", "John P. Smith");
        Propagator p = Propagator.of(b -> b.client(es).slices(SLICES).relation(one.relation()));
        PropagationResult r = p.propagate("1");
        assertThat(r.counts().written()).isEqualTo(500);
        assertThat(p.checkpoint(r.jobId()).orElseThrow().slices()).hasSize(1);

        Blog six = blog(6);
        six.user("1", "John Smith");
        six.posts("1", "John Smith", "p", 500);
        six.user("1", "John P. Smith");
        Propagator byDefault = Propagator.of(b -> b.client(es).relation(six.relation()));
        PropagationResult r1 = byDefault.propagate("1");
        assertThat(r1.counts().written()).isEqualTo(500);
        assertThat(byDefault.checkpoint(r1.jobId()).orElseThrow().slices())
                .as("one stream by default")
                .hasSize(1);
        six.user("1", "John R. Smith");
        Propagator bounded =
                Propagator.of(b -> b.client(es).relation(six.relation()).slices(4));
        PropagationResult r4 = bounded.propagate("1");
        assertThat(r4.counts().written()).isEqualTo(500);
        assertThat(bounded.checkpoint(r4.jobId()).orElseThrow().slices()).hasSize(4);
        six.all().values().forEach(h -> assertThat(Blog.name(h)).isEqualTo("John R. Smith"));
    }
}
