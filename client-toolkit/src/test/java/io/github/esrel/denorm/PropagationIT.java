package io.github.esrel.denorm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import co.elastic.clients.elasticsearch.ElasticsearchClient;
import co.elastic.clients.elasticsearch.core.search.Hit;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.github.esrel.doc.DocStream;
import io.github.esrel.internal.ClientApi;
import io.github.esrel.occ.Occ;
import io.github.esrel.occ.Outcome;
import io.github.esrel.retry.RetryPolicy;
import io.github.esrel.testenv.Cluster;
import io.github.esrel.testenv.EsCluster;
import io.github.esrel.testenv.EsrelTest;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Denormalized propagation on a real node (seed 000 §1.2/§1.4: a user's name copied into every blog
 * post; seed 003 part 2: background updates racing with user edits). One class, one node start.
 */
@EsrelTest
class PropagationIT {

    @Cluster
    static final EsCluster cluster = EsCluster.builder().shared().build();

    private final ElasticsearchClient es = cluster.client();
    private static final AtomicInteger PREFIX = new AtomicInteger();

    private Blog blog() throws IOException {
        return new Blog(es, "blog" + PREFIX.incrementAndGet());
    }

    /** Records every listener call. */
    static class Recorder implements PropagationListener {
        final List<Progress> progress = new CopyOnWriteArrayList<>();
        final List<ChildFailure> failures = new CopyOnWriteArrayList<>();
        final AtomicInteger conflicts = new AtomicInteger();
        final AtomicInteger rejected = new AtomicInteger();
        final List<PropagationResult> finished = new CopyOnWriteArrayList<>();

        @Override
        public void onProgress(Progress p) {
            progress.add(p);
        }

        @Override
        public void onFailure(String jobId, ChildFailure f) {
            failures.add(f);
        }

        @Override
        public void onConflict(String jobId, String childId) {
            conflicts.incrementAndGet();
        }

        @Override
        public void onRejected(String jobId, int documents, Duration backoff) {
            rejected.addAndGet(documents);
        }

        @Override
        public void onFinish(PropagationResult r) {
            finished.add(r);
        }
    }

    @Test
    void shouldCopyTheParentsFieldsIntoEveryChildAndLeaveOtherParentsChildrenAlone() throws Exception {
        Blog blog = blog();
        blog.user("1", "John Smith");
        blog.user("2", "Mary Jones");
        blog.posts("1", "John Smith", "j", 2000);
        blog.posts("2", "Mary Jones", "m", 50);
        Map<String, Hit<ObjectNode>> before = blog.all();
        blog.user("1", "John A. Smith");

        Recorder rec = new Recorder();
        Propagator p = Propagator.of(
                b -> b.client(es).relation(blog.relation()).batchSize(500).listener(rec));
        PropagationResult r = p.propagate("1");

        System.out.println("propagation: " + r);
        assertThat(r.state()).isEqualTo(JobState.COMPLETED);
        assertThat(r.counts().written()).isEqualTo(2000);
        assertThat(r.counts().total()).isEqualTo(2000);
        assertThat(r.counts().failed()).isZero();
        Map<String, Hit<ObjectNode>> after = blog.all();
        for (int i = 0; i < 2000; i++) {
            ObjectNode post = after.get("j" + i).source();
            assertThat(post.path("user").path("name").asText()).isEqualTo("John A. Smith");
            assertThat(post.path("user").path("email").asText()).isEqualTo("john.a..smith@example.com");
            assertThat(post.path("title").asText()).isEqualTo("post " + i + " about relationships");
            assertThat(post.path("esrel").path("post-author").asLong()).isEqualTo(r.parentSeqNo());
        }
        for (int i = 0; i < 50; i++) {
            assertThat(after.get("m" + i).seqNo())
                    .as("other parent's children are not touched")
                    .isEqualTo(before.get("m" + i).seqNo());
        }
        assertThat(rec.progress).isNotEmpty();
        Progress last = rec.progress.get(rec.progress.size() - 1);
        assertThat(last.counts().done()).isEqualTo(2000);
        assertThat(last.counts().total()).isEqualTo(2000);
        assertThat(last.fraction()).isEqualTo(1.0);
        for (int i = 1; i < rec.progress.size(); i++) {
            assertThat(rec.progress.get(i).counts().done())
                    .isGreaterThanOrEqualTo(rec.progress.get(i - 1).counts().done());
        }
        assertThat(rec.progress.get(0).eta()).isNotNull();
        assertThat(rec.finished).containsExactly(r);
        Checkpoint c = p.checkpoint(r.jobId()).orElseThrow();
        assertThat(c.state()).isEqualTo(JobState.COMPLETED);
        assertThat(c.counts().done()).isEqualTo(2000);
        assertThat(c.counts().written()).isEqualTo(2000);
        assertThat(c.parentId()).isEqualTo("1");
    }

    @Test
    void shouldRewriteNothingWhenRunTwice() throws Exception {
        Blog blog = blog();
        blog.user("1", "John Smith");
        blog.posts("1", "John Smith", "p", 800);
        blog.user("1", "Johnny Smith");
        Propagator p = Propagator.of(b -> b.client(es).relation(blog.relation()));
        assertThat(p.propagate("1").counts().written()).isEqualTo(800);
        Map<String, Hit<ObjectNode>> once = blog.all();

        PropagationResult again = p.propagate("1");

        assertThat(again.state()).isEqualTo(JobState.COMPLETED);
        assertThat(again.counts().written()).isZero();
        assertThat(again.counts().total())
                .as("up-to-date children are not even read")
                .isZero();
        Map<String, Hit<ObjectNode>> twice = blog.all();
        once.forEach((id, h) -> assertThat(twice.get(id).seqNo()).isEqualTo(h.seqNo()));

        // A parent write that changes no copied field: children only get the new stamp, once.
        es.index(i -> i.index(blog.users)
                .id("1")
                .document(Map.of("name", "Johnny Smith", "email", "johnny.smith@example.com", "last_login", 12345)));
        PropagationResult stampOnly = p.propagate("1");
        assertThat(stampOnly.counts().written()).isEqualTo(800);
        assertThat(p.propagate("1").counts().written()).isZero();
    }

    /** Also with three bulks in flight: pages are then written concurrently, each write still conditional. */
    @ParameterizedTest(name = "bulksInFlight={0}")
    @ValueSource(ints = {1, 3})
    void shouldKeepEveryConcurrentUserEditOfChildrenAndNeverResurrectOrStealChildren(int bulksInFlight)
            throws Exception {
        Blog blog = blog();
        int n = 2000;
        blog.user("1", "John Smith");
        blog.user("2", "Mary Jones");
        blog.posts("1", "John Smith", "p", n);
        blog.user("1", "John Q. Smith");

        Occ occ = Occ.of(b -> b.client(es).retryPolicy(RetryPolicy.of(r -> r.maxAttempts(1000))));
        AtomicIntegerArray edits = new AtomicIntegerArray(n);
        Set<Integer> deleted = ConcurrentHashMap.newKeySet();
        Set<Integer> moved = ConcurrentHashMap.newKeySet();
        AtomicBoolean stop = new AtomicBoolean();
        Recorder rec = new Recorder();
        Propagator p = Propagator.of(b -> b.client(es)
                .relation(blog.relation())
                .batchSize(200)
                .maxDocsPerSecond(1500)
                .bulksInFlight(bulksInFlight)
                .listener(rec));
        ExecutorService pool = Executors.newFixedThreadPool(4);
        try {
            List<Future<?>> editors = new ArrayList<>();
            for (int w = 0; w < 3; w++) {
                long seed = w;
                editors.add(pool.submit(() -> {
                    Random rnd = new Random(seed);
                    while (!stop.get()) {
                        int i = rnd.nextInt(n);
                        if (deleted.contains(i) || moved.contains(i)) {
                            continue;
                        }
                        Outcome<ObjectNode> o = occ.update(blog.posts, "p" + i, ObjectNode.class, doc -> {
                            ObjectNode c = doc.deepCopy();
                            c.put("edits", c.path("edits").asInt() + 1);
                            c.put("title", "edited " + (c.path("edits").asInt()));
                            return c;
                        });
                        if (o.status() == Outcome.Status.UPDATED) {
                            edits.incrementAndGet(i);
                        }
                    }
                    return null;
                }));
            }
            editors.add(pool.submit(() -> {
                Random rnd = new Random(99);
                for (int k = 0; k < 40 && !stop.get(); k++) {
                    int i = rnd.nextInt(n);
                    if (k % 2 == 0 && deleted.add(i)) {
                        es.delete(d -> d.index(blog.posts).id("p" + i));
                    } else if (!deleted.contains(i) && moved.add(i)) {
                        occ.update(blog.posts, "p" + i, ObjectNode.class, doc -> {
                                    ObjectNode c = doc.deepCopy();
                                    ((ObjectNode) c.get("user")).put("id", "2").put("name", "Mary Jones");
                                    return c;
                                })
                                .orThrow();
                    }
                }
                return null;
            }));
            PropagationResult r = p.propagate("1");
            Thread.sleep(200); // let the editors overlap the end of the job as well
            stop.set(true);
            for (Future<?> f : editors) {
                f.get(60, TimeUnit.SECONDS);
            }
            System.out.println("with concurrent edits: " + r + ", listener conflicts " + rec.conflicts);

            assertThat(r.state()).isEqualTo(JobState.COMPLETED);
            assertThat(r.counts().failed()).isZero();
            Map<String, Hit<ObjectNode>> all = blog.all();
            int editsSeen = 0;
            for (int i = 0; i < n; i++) {
                Hit<ObjectNode> h = all.get("p" + i);
                if (deleted.contains(i)) {
                    assertThat(h).as("p%d was deleted and must stay deleted", i).isNull();
                    continue;
                }
                if (moved.contains(i)) {
                    assertThat(Blog.name(h)).as("p%d moved to Mary", i).isEqualTo("Mary Jones");
                    continue;
                }
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
    void shouldCatchChildrenCreatedWithOldCopiesWhileTheJobRuns() throws Exception {
        Blog blog = blog();
        blog.user("1", "John Smith");
        blog.posts("1", "John Smith", "p", 600);
        blog.user("1", "John B. Smith");
        CountDownLatch firstPage = new CountDownLatch(1);
        // 400 docs/s in pages of 200: the main pass lasts at least another second after its first page.
        Propagator p = Propagator.of(b -> b.client(es)
                .relation(blog.relation())
                .batchSize(200)
                .maxDocsPerSecond(400)
                .listener(new PropagationListener() {
                    @Override
                    public void onProgress(Progress pr) {
                        firstPage.countDown();
                    }
                }));
        PropagationJob job = p.start("1");
        assertThat(firstPage.await(60, TimeUnit.SECONDS)).isTrue();
        // A writer that read the user before the rename creates posts with the old name now.
        blog.posts("1", "John Smith", "late", 100);
        PropagationResult r = job.await();

        System.out.println("with late children: " + r);
        assertThat(r.state()).isEqualTo(JobState.COMPLETED);
        assertThat(r.counts().passes()).isGreaterThanOrEqualTo(2);
        assertThat(r.counts().written()).isEqualTo(700);
        blog.all().values().forEach(h -> assertThat(Blog.name(h)).as(h.id()).isEqualTo("John B. Smith"));
    }

    /** A job's handle has a progress from the start: nothing done, the total unknown; never null. */
    @Test
    void shouldReportAZeroProgressBeforeTheFirstPage() throws Exception {
        Blog blog = blog();
        blog.user("1", "John");
        blog.posts("1", "Johnny", "p", 20);
        CountDownLatch started = new CountDownLatch(1);
        CountDownLatch go = new CountDownLatch(1);
        Propagator p = Propagator.of(b -> b.client(es).relation(blog.relation()).listener(new PropagationListener() {
            @Override
            public void onStart(String jobId, String parentId) {
                started.countDown();
                await(go);
            }
        }));
        PropagationJob job = p.start("1");
        try {
            assertThat(started.await(60, TimeUnit.SECONDS)).isTrue();
            Progress before = job.progress();
            assertThat(before).as("progress before the first page").isNotNull();
            assertThat(before.jobId()).isEqualTo(job.id());
            assertThat(before.counts().done()).isZero();
            assertThat(before.counts().total()).isEqualTo(-1);
            assertThat(before.fraction()).isZero();
        } finally {
            go.countDown();
        }
        assertThat(job.await().counts().written()).isEqualTo(20);
        assertThat(job.progress().counts().done()).isEqualTo(20);
    }

    @Test
    void shouldConvergeOnTheNewestParentWhenAnOlderJobWritesAfterANewerOne() throws Exception {
        Blog blog = blog();
        blog.user("1", "v0");
        blog.posts("1", "v0", "p", 300);
        blog.user("1", "v1");
        CountDownLatch j1Ready = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        AtomicBoolean first = new AtomicBoolean(true);
        Recorder rec1 = new Recorder();
        Propagator slow =
                Propagator.of(b -> b.client(es).relation(blog.relation()).listener(new PropagationListener() {
                    @Override
                    public void beforeBulk(String jobId, int pass, int documents) {
                        if (first.getAndSet(false)) {
                            j1Ready.countDown();
                            try {
                                release.await(60, TimeUnit.SECONDS);
                            } catch (InterruptedException e) {
                                Thread.currentThread().interrupt();
                            }
                        }
                    }

                    @Override
                    public void onConflict(String jobId, String childId) {
                        rec1.onConflict(jobId, childId);
                    }
                }));
        PropagationJob j1 = slow.start("1");
        assertThat(j1Ready.await(60, TimeUnit.SECONDS)).isTrue();
        // J1 holds 300 writes with "v1"; the user is renamed again and J2 runs to the end first.
        blog.user("1", "v2");
        PropagationResult j2 =
                Propagator.of(b -> b.client(es).relation(blog.relation())).propagate("1");
        assertThat(j2.counts().written()).isEqualTo(300);
        release.countDown();
        PropagationResult r1 = j1.await();

        System.out.println("older job after newer: " + r1);
        assertThat(r1.state()).isEqualTo(JobState.COMPLETED);
        assertThat(r1.counts().conflicts())
                .as("every held write meets J2's newer child")
                .isEqualTo(300);
        assertThat(rec1.conflicts.get()).isEqualTo(300);
        assertThat(r1.counts().upToDate())
                .as("after re-reading, the children already carry v2")
                .isEqualTo(300);
        blog.all().values().forEach(h -> assertThat(Blog.name(h)).isEqualTo("v2"));
    }

    @Test
    void shouldConvergeOnTheLastNameWhenManyPropagationsOfOneParentRunAtOnce() throws Exception {
        Blog blog = blog();
        blog.user("1", "name-0");
        blog.posts("1", "name-0", "p", 600);
        Propagator p = Propagator.of(b -> b.client(es).relation(blog.relation()).batchSize(100));
        List<PropagationJob> jobs = new ArrayList<>();
        for (int k = 1; k <= 4; k++) {
            blog.user("1", "name-" + k);
            jobs.add(p.start("1"));
        }
        List<PropagationResult> results = new ArrayList<>();
        for (PropagationJob j : jobs) {
            results.add(j.await());
        }
        results.forEach(r -> System.out.println("concurrent job: " + r));
        results.forEach(r -> assertThat(r.state()).isEqualTo(JobState.COMPLETED));
        blog.all().values().forEach(h -> assertThat(Blog.name(h)).as(h.id()).isEqualTo("name-4"));
    }

    @Test
    void shouldResumeFromItsCheckpointAfterTheProcessIsKilled() throws Exception {
        Blog blog = blog();
        int n = 2000;
        blog.user("1", "John Smith");
        blog.posts("1", "John Smith", "p", n);
        blog.user("1", "John K. Smith");
        String java = ProcessHandle.current().info().command().orElse("java");
        String classpath = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
        Process child = new ProcessBuilder(
                        java,
                        "-cp",
                        classpath,
                        PropagationCrashChild.class.getName(),
                        cluster.httpUri().toString(),
                        blog.users,
                        blog.posts,
                        "1",
                        "400")
                .redirectError(ProcessBuilder.Redirect.DISCARD)
                .start();
        Propagator p = Propagator.of(b -> b.client(es).relation(blog.relation()).staleAfter(Duration.ZERO));
        Checkpoint atKill;
        try {
            BufferedReader out =
                    new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8));
            String line = out.readLine();
            assertThat(line).as("the child JVM reports its job").startsWith("JOB ");
            String jobId = line.substring(4).trim();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
            while (true) {
                Checkpoint c = p.checkpoint(jobId).orElse(null);
                if (c != null && c.counts().done() >= 500) {
                    break;
                }
                assertThat(System.nanoTime()).as("child makes progress").isLessThan(deadline);
                assertThat(child.isAlive()).as("child still running").isTrue();
                Thread.sleep(20);
            }
            child.destroyForcibly(); // SIGKILL: no finally blocks, no last checkpoint
            assertThat(child.waitFor(30, TimeUnit.SECONDS)).isTrue();
            atKill = p.checkpoint(jobId).orElseThrow();
        } finally {
            child.destroyForcibly();
        }
        System.out.println("checkpoint after kill -9: " + atKill);
        assertThat(atKill.state()).isEqualTo(JobState.RUNNING);
        assertThat(atKill.counts().done()).isBetween(500L, (long) n - 1);
        assertThat(p.unfinished()).extracting(Checkpoint::jobId).contains(atKill.jobId());

        List<PropagationResult> resumed = p.resumeUnfinished();

        assertThat(resumed).hasSize(1);
        PropagationResult r = resumed.get(0);
        System.out.println("resumed: " + r);
        assertThat(r.jobId()).isEqualTo(atKill.jobId());
        assertThat(r.state()).isEqualTo(JobState.COMPLETED);
        long writtenByResume = r.counts().written() - atKill.counts().written();
        assertThat(writtenByResume)
                .as("children done before the kill are not rewritten")
                .isLessThanOrEqualTo(n - atKill.counts().written())
                .isPositive();
        assertThat(r.counts().total()).isEqualTo(n);
        blog.all().values().forEach(h -> assertThat(Blog.name(h)).isEqualTo("John K. Smith"));
        assertThat(p.checkpoint(atKill.jobId()).orElseThrow().state()).isEqualTo(JobState.COMPLETED);
        assertThat(p.unfinished()).extracting(Checkpoint::jobId).doesNotContain(atKill.jobId());
    }

    @Test
    void shouldThrottleToTheRequestedRate() throws Exception {
        Blog blog = blog();
        blog.user("1", "John Smith");
        blog.posts("1", "John Smith", "p", 900);
        blog.user("1", "John T. Smith");
        PropagationResult r = Propagator.of(
                        b -> b.client(es).relation(blog.relation()).maxDocsPerSecond(600))
                .propagate("1");
        System.out.println("throttled to 600/s: " + r);
        // Pages of 600: the second may start 1 s after the first. A lower bound only: a slow machine is slower.
        assertThat(r.took()).isGreaterThanOrEqualTo(Duration.ofMillis(950));
        assertThat(r.counts().written()).isEqualTo(900);
    }

    @Test
    void shouldStopWhenCancelledAndFinishWhenResumed() throws Exception {
        Blog blog = blog();
        int n = 1500;
        blog.user("1", "John Smith");
        blog.posts("1", "John Smith", "p", n);
        blog.user("1", "John C. Smith");
        CountDownLatch progressed = new CountDownLatch(1);
        Propagator p = Propagator.of(b -> b.client(es)
                .relation(blog.relation())
                .maxDocsPerSecond(300)
                .listener(new PropagationListener() {
                    @Override
                    public void onProgress(Progress pr) {
                        progressed.countDown();
                    }
                }));
        PropagationJob job = p.start("1");
        assertThat(progressed.await(60, TimeUnit.SECONDS)).isTrue();
        job.cancel();
        PropagationResult cancelled = job.await();

        System.out.println("cancelled: " + cancelled);
        assertThat(cancelled.state()).isEqualTo(JobState.CANCELLED);
        assertThat(cancelled.counts().written()).isBetween(1L, (long) n - 1);
        assertThat(p.checkpoint(job.id()).orElseThrow().state()).isEqualTo(JobState.CANCELLED);
        long stale = blog.all().values().stream()
                .filter(h -> Blog.name(h).equals("John Smith"))
                .count();
        assertThat(stale).isEqualTo(n - cancelled.counts().written());

        PropagationResult resumed =
                Propagator.of(b -> b.client(es).relation(blog.relation())).resume(job.id());
        assertThat(resumed.state()).isEqualTo(JobState.COMPLETED);
        assertThat(resumed.counts().written()).isEqualTo(n);
        blog.all().values().forEach(h -> assertThat(Blog.name(h)).isEqualTo("John C. Smith"));
        assertThatThrownBy(() -> p.resume("post-author:1:nosuchjob"))
                .isInstanceOf(PropagationException.class)
                .hasMessageContaining("no propagation job");
    }

    @Test
    void shouldStreamWithAScrollAndWriteWithPartialUpdatesToo() throws Exception {
        Blog blog = blog();
        blog.user("1", "John Smith");
        blog.posts("1", "John Smith", "p", 1200);
        blog.user("1", "John S. Smith");
        PropagationResult r = Propagator.of(b -> b.client(es)
                        .relation(blog.relation())
                        .batchSize(500)
                        .streaming(DocStream.Mode.SCROLL)
                        .writeMode(Propagator.WriteMode.PARTIAL_UPDATE))
                .propagate("1");
        assertThat(r.state()).as(r.toString()).isEqualTo(JobState.COMPLETED);
        assertThat(r.counts().written()).as(r.toString()).isEqualTo(1200);
        blog.all().values().forEach(h -> {
            assertThat(Blog.name(h)).isEqualTo("John S. Smith");
            assertThat(h.source().path("title").asText()).startsWith("post ");
        });
    }

    @Test
    void shouldReportEveryChildThatCannotBeWrittenAndWriteTheOthers() throws Exception {
        Blog blog = blog();
        blog.user("1", "John Smith");
        es.indices()
                .putMapping(m -> m.index(blog.posts)
                        .withJson(new StringReader(
                                "{\"properties\": {\"rating\": {\"type\": \"integer\", \"ignore_malformed\": true},"
                                        + " \"author_card\": {\"type\": \"object\", \"enabled\": false}}}")));
        blog.posts("1", "John Smith", "p", 100);
        // Ten posts hold a malformed rating, accepted while ignore_malformed was on; five hold "author_card" as text.
        for (int i = 0; i < 10; i++) {
            String id = "p" + i;
            es.index(x -> x.index(blog.posts)
                    .id(id)
                    .document(Blog.post("1", "John Smith", 0).put("rating", "five stars")));
        }
        for (int i = 10; i < 15; i++) {
            String id = "p" + i;
            es.index(x -> x.index(blog.posts)
                    .id(id)
                    .document(Blog.post("1", "John Smith", 0).put("author_card", "legacy")));
        }
        es.indices()
                .putMapping(
                        m -> m.index(blog.posts)
                                .withJson(
                                        new StringReader(
                                                "{\"properties\": {\"rating\": {\"type\": \"integer\", \"ignore_malformed\": false}}}")));
        blog.user("1", "John F. Smith");
        Relation withCard = Relation.of(r -> r.name("post-author")
                .parentIndex(blog.users)
                .childIndex(blog.posts)
                .parentIdField("user.id")
                .copy("name", "user.name")
                .copy("name", "author_card.name"));
        Recorder rec = new Recorder();

        PropagationResult r = Propagator.of(b -> b.client(es).relation(withCard).listener(rec))
                .propagate("1");

        System.out.println("with bad children: " + r);
        r.failures().forEach(f -> System.out.println("  " + f));
        assertThat(r.state()).isEqualTo(JobState.COMPLETED_WITH_FAILURES);
        assertThat(r.counts().failed()).isEqualTo(15);
        assertThat(r.counts().written()).isEqualTo(85);
        assertThat(rec.failures)
                .extracting(ChildFailure::childId)
                .containsExactlyInAnyOrderElementsOf(java.util.stream.IntStream.range(0, 15)
                        .mapToObj(i -> "p" + i)
                        .toList());
        assertThat(rec.failures)
                .filteredOn(f -> f.status() == 400)
                .hasSize(10)
                .allSatisfy(f -> assertThat(f.reason()).contains("rating"));
        assertThat(rec.failures)
                .filteredOn(f -> f.status() == 0)
                .hasSize(5)
                .allSatisfy(f -> assertThat(f.reason()).contains("author_card"));
        assertThat(r.counts().passes())
                .as("failed children are not retried by catch-up passes")
                .isLessThanOrEqualTo(2);
    }

    @Test
    void shouldSyncOneChildWrittenWithOldCopies() throws Exception {
        Blog blog = blog();
        blog.user("1", "John Smith");
        blog.user("1", "John N. Smith");
        es.index(i -> i.index(blog.posts).id("late").document(Blog.post("1", "John Smith", 1)));
        Propagator p = Propagator.of(b -> b.client(es).relation(blog.relation()));

        ChildSync s = p.syncChild("late");

        assertThat(s.status()).isEqualTo(ChildSync.Status.WRITTEN);
        assertThat(es.get(g -> g.index(blog.posts).id("late"), ObjectNode.class)
                        .source()
                        .path("user")
                        .path("name")
                        .asText())
                .isEqualTo("John N. Smith");
        assertThat(p.syncChild("late").status()).isEqualTo(ChildSync.Status.UP_TO_DATE);
        assertThat(p.syncChild("nope").status()).isEqualTo(ChildSync.Status.NOT_FOUND);
        es.index(i -> i.index(blog.posts).id("orphan").document(Blog.post("404", "Nobody", 1)));
        assertThat(p.syncChild("orphan").status()).isEqualTo(ChildSync.Status.NO_PARENT);
        assertThat(p.propagate("404").state()).isEqualTo(JobState.PARENT_NOT_FOUND);
    }

    @Test
    void shouldSearchOneShardWhenChildrenAreRoutedByParent() throws Exception {
        Blog blog = blog();
        blog.user("7", "Routed Smith");
        for (int i = 0; i < 50; i++) {
            String id = "r" + i;
            ObjectNode doc = Blog.post("7", "Old Smith", i);
            es.index(x -> ClientApi.routing(x.index(blog.posts).id(id), "7").document(doc));
        }
        Relation routed = Relation.of(r -> r.name("post-author")
                .parentIndex(blog.users)
                .childIndex(blog.posts)
                .parentIdField("user.id")
                .copy("name", "user.name")
                .childrenRoutedByParent(true));
        PropagationResult r = Propagator.of(b -> b.client(es).relation(routed)).propagate("7");
        assertThat(r.counts().written()).isEqualTo(50);
        blog.all().values().forEach(h -> {
            assertThat(h.routing()).isEqualTo("7");
            assertThat(Blog.name(h)).isEqualTo("Routed Smith");
        });
        assertThat(Collections.frequency(
                        blog.all().keySet().stream().map(k -> k.charAt(0)).toList(), 'r'))
                .isEqualTo(50);
    }

    private static void await(CountDownLatch latch) {
        try {
            if (!latch.await(60, TimeUnit.SECONDS)) {
                throw new IllegalStateException("gave up waiting for the test to go on");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
