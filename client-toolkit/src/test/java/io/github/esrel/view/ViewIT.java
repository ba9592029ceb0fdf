package io.github.esrel.view;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import co.elastic.clients.elasticsearch.ElasticsearchClient;
import co.elastic.clients.elasticsearch.core.GetResponse;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.github.esrel.occ.Versioned;
import io.github.esrel.testenv.Cluster;
import io.github.esrel.testenv.EsCluster;
import io.github.esrel.testenv.EsrelTest;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * Materialized views on a real node (seed 003 parts 2 and 3): PhotoUserView rebuilt whole, stale
 * rebuilds refused by external versions, races, re-parenting, crashes between the source write and the
 * view update, the repair sweep, and {@code pk__in} queries. One class, one node start.
 */
@EsrelTest
class ViewIT {

    @Cluster
    static final EsCluster cluster = EsCluster.builder().shared().build();

    private final ElasticsearchClient es = cluster.client();
    private static final AtomicInteger PREFIX = new AtomicInteger();

    private String fresh() throws IOException {
        String prefix = "pv" + PREFIX.incrementAndGet();
        Photos.create(es, prefix);
        return prefix;
    }

    private void user(String prefix, String id, String gender, String hair) throws IOException {
        ObjectNode u = Photos.user(gender, hair);
        es.index(i -> i.index(prefix + "-users").id(id).document(u));
    }

    private void photo(String prefix, String id, String userId, String title) throws IOException {
        ObjectNode p = Photos.photo(userId, title, "high");
        es.index(i -> i.index(prefix + "-photos").id(id).document(p));
    }

    /** The view as it must be for the current sources (without bookkeeping), or empty if the photo is gone. */
    private Optional<ObjectNode> expected(String prefix, String photoId) throws IOException {
        GetResponse<ObjectNode> p = es.get(g -> g.index(prefix + "-photos").id(photoId), ObjectNode.class);
        if (!p.found()) {
            return Optional.empty();
        }
        ObjectNode view = p.source().deepCopy();
        String userId = view.path("user_id").asText(null);
        GetResponse<ObjectNode> u =
                userId == null ? null : es.get(g -> g.index(prefix + "-users").id(userId), ObjectNode.class);
        if (u != null && u.found()) {
            view.set("user_gender", u.source().get("gender"));
            view.set("user_hair", u.source().get("hair"));
        }
        return Optional.of(view);
    }

    private void assertViewIsCurrent(MaterializedView<ObjectNode, ObjectNode> views, String prefix, String photoId)
            throws IOException {
        Optional<ObjectNode> want = expected(prefix, photoId);
        Optional<ViewDoc> got = views.get(photoId);
        if (want.isEmpty()) {
            assertThat(got).as("view of deleted photo %s", photoId).isEmpty();
            return;
        }
        assertThat(got).as("view of %s", photoId).isPresent();
        assertThat(got.get().document()).as("view of %s", photoId).isEqualTo(want.get());
        assertThat(got.get().sourceSeqNo())
                .isEqualTo(es.get(g -> g.index(prefix + "-photos").id(photoId), ObjectNode.class)
                        .seqNo());
    }

    @Test
    void shouldBuildTheViewFromAllPhotoFieldsAndCopiesOfTheUsersFields() throws Exception {
        String px = fresh();
        MaterializedView<ObjectNode, ObjectNode> views = Photos.view(es, px);
        user(px, "u1", "female", "red");
        ViewChange<Object> c = views.changeSource("p1", () -> {
            photo(px, "p1", "u1", "sunset");
            return "ok";
        });

        assertThat(c.result()).isEqualTo("ok");
        assertThat(c.rebuild().written()).isEqualTo(1);
        assertThat(c.intentCleared()).isTrue();
        ViewDoc v = views.get("p1").orElseThrow();
        assertThat(v.document().path("title").asText()).isEqualTo("sunset");
        assertThat(v.document().path("popularity").asText()).isEqualTo("high");
        assertThat(v.document().path("user_gender").asText()).isEqualTo("female");
        assertThat(v.document().path("user_hair").asText()).isEqualTo("red");
        assertThat(v.parentId()).isEqualTo("u1");
        assertThat(v.version()).isNotNegative();
        assertViewIsCurrent(views, px, "p1");
        assertThat(views.pendingIntents()).isEmpty();
    }

    @Test
    void shouldRebuildEveryViewOfAUserWhenTheUserChanges() throws Exception {
        String px = fresh();
        MaterializedView<ObjectNode, ObjectNode> views = Photos.view(es, px);
        user(px, "u1", "female", "red");
        user(px, "u2", "male", "black");
        Photos.photos(es, px, "u1", "a", 1200);
        Photos.photos(es, px, "u2", "b", 20);
        es.indices().refresh(r -> r.index(px + "-photos"));
        RepairReport first = views.sweep();
        assertThat(first.lagging()).as("no view exists yet").isEqualTo(1220);
        long u2Version = views.get("b0").orElseThrow().version();

        ViewChange<Void> c = views.changeParent("u1", () -> {
            user(px, "u1", "female", "grey");
            return null;
        });

        assertThat(c.rebuild().requested()).isEqualTo(1200);
        assertThat(c.rebuild().written()).isEqualTo(1200);
        assertThat(c.rebuild().clockReads())
                .as("one clock value per batch of 500")
                .isBetween(3L, 10L);
        for (String id : List.of("a0", "a599", "a1199")) {
            assertThat(views.get(id).orElseThrow().document().path("user_hair").asText())
                    .isEqualTo("grey");
        }
        assertThat(views.get("b0").orElseThrow().version())
                .as("other users' views untouched")
                .isEqualTo(u2Version);
        assertThat(views.sweep().lagging()).isZero();
    }

    @Test
    void shouldNeverLetAStaleRebuildOverwriteANewerOne() throws Exception {
        String px = fresh();
        MaterializedView<ObjectNode, ObjectNode> views = Photos.view(es, px);
        user(px, "u1", "female", "red");
        photo(px, "p1", "u1", "A");

        ViewSnapshot older = views.snapshot("p1");
        photo(px, "p1", "u1", "B");
        ViewSnapshot newer = views.snapshot("p1");
        assertThat(newer.version()).isGreaterThan(older.version());
        assertThat(older.document().path("title").asText()).isEqualTo("A");

        assertThat(views.write(newer).written()).isEqualTo(1);
        RebuildResult late = views.write(older);
        assertThat(late.stale())
                .as("the older snapshot arrives late and is refused")
                .isEqualTo(1);
        assertThat(late.written()).isZero();
        assertThat(views.get("p1").orElseThrow().document().path("title").asText())
                .isEqualTo("B");
        assertThat(views.get("p1").orElseThrow().version()).isEqualTo(newer.version());
        assertThat(views.write(newer).stale())
                .as("the same snapshot twice: the second is refused too")
                .isEqualTo(1);
    }

    private static Rebuilder.Prepared prepareOne(Rebuilder rb, List<Rebuilder.Ref> refs) throws IOException {
        List<ViewFailure> failures = new ArrayList<>();
        List<Rebuilder.Prepared> ready = rb.prepare(refs, failures, new Rebuilder.Counts());
        assertThat(failures).isEmpty();
        return ready.get(0);
    }

    private static RebuildResult writeOne(Rebuilder rb, Rebuilder.Prepared p) throws IOException {
        return rb.write(List.of(p), new ArrayList<>(), new Rebuilder.Counts(), 1);
    }

    @Test
    void shouldRaiseTheVersionWhenAPhotoMovesToAUserWithASmallerVersion() throws Exception {
        String px = fresh();
        MaterializedView<ObjectNode, ObjectNode> views = Photos.view(es, px);
        for (int i = 0; i < 50; i++) {
            user(px, "heavy", "female", "shade " + i);
        }
        photo(px, "p1", "heavy", "portrait");
        views.rebuild("p1");
        Rebuilder rb = views.rebuilder();
        Rebuilder.Prepared before = prepareOne(rb, List.of(new Rebuilder.Ref("p1", null)));
        user(px, "light", "male", "blond");
        photo(px, "p1", "light", "portrait");
        Rebuilder.Prepared after = prepareOne(rb, List.of(new Rebuilder.Ref("p1", null)));

        long heavyVersion = es.get(g -> g.index(px + "-users").id("heavy"), ObjectNode.class)
                .version();
        long lightVersion = es.get(g -> g.index(px + "-users").id("light"), ObjectNode.class)
                .version();
        long photoVersion =
                es.get(g -> g.index(px + "-photos").id("p1"), ObjectNode.class).version();
        System.out.printf(
                "re-parenting: sum of _versions would go from %d to %d; esrel's view version goes from %d to %d%n",
                (photoVersion - 1) + heavyVersion, photoVersion + lightVersion, before.version(), after.version());
        assertThat(photoVersion + lightVersion)
                .as("the naive sum would fall")
                .isLessThan(photoVersion - 1 + heavyVersion);
        assertThat(after.version()).isGreaterThan(before.version());

        writeOne(rb, after);
        assertThat(writeOne(rb, before).stale()).isEqualTo(1);
        ViewDoc v = views.get("p1").orElseThrow();
        assertThat(v.parentId()).isEqualTo("light");
        assertThat(v.document().path("user_hair").asText()).isEqualTo("blond");
    }

    @Test
    void shouldLeaveTheNewestSnapshotWhateverOrderManyRebuildsAreWrittenIn() throws Exception {
        String px = fresh();
        MaterializedView<ObjectNode, ObjectNode> views = Photos.view(es, px);
        for (String u : List.of("u1", "u2", "u3")) {
            user(px, u, "female", "start");
        }
        photo(px, "p1", "u1", "t0");
        Rebuilder rb = views.rebuilder();
        Random rnd = new Random(2024);
        List<Rebuilder.Prepared> prepared = new ArrayList<>();
        for (int k = 1; k <= 25; k++) {
            switch (rnd.nextInt(3)) {
                case 0 -> photo(px, "p1", "u" + (1 + rnd.nextInt(3)), "t" + k); // edit, sometimes re-parent
                case 1 -> user(px, "u" + (1 + rnd.nextInt(3)), rnd.nextBoolean() ? "female" : "male", "h" + k);
                default -> {}
            }
            prepared.add(prepareOne(rb, List.of(new Rebuilder.Ref("p1", null))));
        }
        Rebuilder.Prepared newest = prepared.get(prepared.size() - 1);
        for (int i = 1; i < prepared.size(); i++) {
            assertThat(prepared.get(i).version())
                    .isGreaterThan(prepared.get(i - 1).version());
        }
        Collections.shuffle(prepared, rnd);
        long stale = 0;
        for (Rebuilder.Prepared p : prepared) {
            stale += writeOne(rb, p).stale();
        }

        System.out.println("25 snapshots written in random order: " + stale + " refused as stale");
        assertThat(stale).isPositive();
        ViewDoc v = views.get("p1").orElseThrow();
        assertThat(v.version()).isEqualTo(newest.version());
        ObjectNode want = newest.document().deepCopy();
        want.remove("esrel");
        assertThat(v.document()).isEqualTo(want);
        assertViewIsCurrent(views, px, "p1");
    }

    @Test
    void shouldEndWithEveryViewCurrentAfterConcurrentEditsReparentingAndDelayedRebuilds() throws Exception {
        String px = fresh();
        MaterializedView<ObjectNode, ObjectNode> views = Photos.view(es, px);
        int photos = 20;
        int users = 4;
        for (int u = 0; u < users; u++) {
            user(px, "u" + u, "female", "start");
        }
        for (int p = 0; p < photos; p++) {
            photo(px, "p" + p, "u" + (p % users), "t");
        }
        views.sweep();
        ConcurrentLinkedQueue<Rebuilder.Prepared> delayed = new ConcurrentLinkedQueue<>();
        AtomicBoolean stop = new AtomicBoolean();
        AtomicLong staleSeen = new AtomicLong();
        Rebuilder rb = views.rebuilder();
        ExecutorService pool = Executors.newFixedThreadPool(5);
        try {
            List<Future<?>> writers = new ArrayList<>();
            for (int w = 0; w < 3; w++) {
                long seed = w;
                writers.add(pool.submit(() -> {
                    Random rnd = new Random(seed);
                    for (int k = 0; k < 20; k++) {
                        String pid = "p" + rnd.nextInt(photos);
                        String uid = "u" + rnd.nextInt(users);
                        String tag = seed + "-" + k;
                        switch (rnd.nextInt(4)) {
                            case 0 ->
                                views.changeSource(pid, () -> {
                                    photo(px, pid, "u" + rnd.nextInt(users), "t" + tag); // re-parent + edit
                                    return null;
                                });
                            case 1 ->
                                views.changeParent(uid, () -> {
                                    user(px, uid, rnd.nextBoolean() ? "female" : "male", "h" + tag);
                                    return null;
                                });
                            case 2 ->
                                views.changeSource(pid, () -> {
                                    photo(
                                            px,
                                            pid,
                                            es.get(g -> g.index(px + "-photos").id(pid), ObjectNode.class)
                                                    .source()
                                                    .path("user_id")
                                                    .asText(),
                                            "edit " + tag);
                                    return null;
                                });
                            default ->
                                delayed.addAll(rb.prepare(
                                        List.of(new Rebuilder.Ref(pid, null)),
                                        new ArrayList<>(),
                                        new Rebuilder.Counts())); // a slow rebuild: written later, out of order
                        }
                    }
                    return null;
                }));
            }
            writers.add(pool.submit(() -> {
                Random rnd = new Random(77);
                while (!stop.get() || !delayed.isEmpty()) {
                    List<Rebuilder.Prepared> batch = new ArrayList<>();
                    for (Rebuilder.Prepared p; batch.size() < 5 && (p = delayed.poll()) != null; ) {
                        batch.add(p);
                    }
                    Collections.shuffle(batch, rnd);
                    for (Rebuilder.Prepared p : batch) {
                        staleSeen.addAndGet(rb.write(List.of(p), new ArrayList<>(), new Rebuilder.Counts(), 1)
                                .stale());
                    }
                    if (batch.isEmpty()) {
                        Thread.onSpinWait();
                    }
                }
                return null;
            }));
            for (int i = 0; i < 3; i++) {
                writers.get(i).get(180, TimeUnit.SECONDS);
            }
            stop.set(true);
            writers.get(3).get(60, TimeUnit.SECONDS);
        } finally {
            stop.set(true);
            pool.shutdownNow();
        }
        System.out.println("concurrent harness: delayed rebuilds refused as stale: " + staleSeen.get());
        for (int p = 0; p < photos; p++) {
            assertViewIsCurrent(views, px, "p" + p);
        }
        assertThat(views.pendingIntents()).isEmpty();
        RepairReport sweep = views.sweep();
        assertThat(sweep.lagging()).as("nothing for the sweep to fix").isZero();
    }

    @Test
    void shouldRepairAViewWhoseWriterWasKilledBetweenTheSourceWriteAndTheViewUpdate() throws Exception {
        String px = fresh();
        MaterializedView<ObjectNode, ObjectNode> views = Photos.view(es, px);
        user(px, "u1", "female", "red");
        views.changeSource("p1", () -> {
            photo(px, "p1", "u1", "before");
            return null;
        });
        String java = ProcessHandle.current().info().command().orElse("java");
        String classpath = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
        Process child = new ProcessBuilder(
                        java,
                        "-cp",
                        classpath,
                        ViewCrashChild.class.getName(),
                        cluster.httpUri().toString(),
                        px,
                        "p1",
                        "after")
                .redirectError(ProcessBuilder.Redirect.DISCARD)
                .start();
        try {
            String line = new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8))
                    .readLine();
            assertThat(line).as("the child wrote the photo").isEqualTo("WRITTEN");
            child.destroyForcibly(); // SIGKILL between the source write and the view update
            assertThat(child.waitFor(30, TimeUnit.SECONDS)).isTrue();
        } finally {
            child.destroyForcibly();
        }
        assertThat(es.get(g -> g.index(px + "-photos").id("p1"), ObjectNode.class)
                        .source()
                        .path("title")
                        .asText())
                .isEqualTo("after");
        assertThat(views.get("p1").orElseThrow().document().path("title").asText())
                .as("stale after the kill")
                .isEqualTo("before");
        List<Intent> pending = views.pendingIntents();
        assertThat(pending).hasSize(1);
        assertThat(pending.get(0).target()).isEqualTo(Intent.Target.SOURCE);
        assertThat(pending.get(0).targetId()).isEqualTo("p1");

        RepairReport r = views.repair();

        System.out.println("repair after kill -9: " + r);
        assertThat(r.intentsReplayed()).isEqualTo(1);
        assertThat(views.get("p1").orElseThrow().document().path("title").asText())
                .isEqualTo("after");
        assertViewIsCurrent(views, px, "p1");
        assertThat(views.pendingIntents()).isEmpty();
    }

    @Test
    void shouldRepairEveryKindOfLagAfterInjectedCrashes() throws Exception {
        String px = fresh();
        MaterializedView<ObjectNode, ObjectNode> views = Photos.view(es, px);
        user(px, "u1", "female", "red");
        user(px, "u2", "male", "black");
        Photos.photos(es, px, "u1", "a", 30);
        Photos.photos(es, px, "u2", "b", 30);
        es.indices().refresh(r -> r.index(px + "-photos"));
        views.sweep();

        // 1. crash after a parent write: intent recorded, user written, views never rebuilt
        views.beginParentChange("u1");
        user(px, "u1", "female", "white");
        // 2. crash after a source write
        views.beginSourceChange("b1");
        photo(px, "b1", "u1", "moved to u1");
        // 3. writes that bypassed the view entirely: an edit, a new photo, a deleted photo
        photo(px, "b2", "u2", "edited behind the view's back");
        photo(px, "new", "u2", "created behind the view's back");
        es.delete(d -> d.index(px + "-photos").id("b3"));
        // 4. a rebuild that failed half way (composer throws for one photo): its intent stays
        AtomicBoolean failOnce = new AtomicBoolean(true);
        MaterializedView<ObjectNode, ObjectNode> flaky = MaterializedView.of(
                ObjectNode.class,
                ObjectNode.class,
                v -> v.client(es)
                        .name(px)
                        .sourceIndex(px + "-photos")
                        .parentIndex(px + "-users")
                        .parentIdField("user_id")
                        .viewIndex(px + "-view")
                        .stateIndex(px + "-state")
                        .compose((photo, user) -> {
                            if (failOnce.getAndSet(false)) {
                                throw new IllegalStateException("simulated crash inside the rebuild");
                            }
                            ObjectNode out = photo.deepCopy();
                            if (user != null) {
                                out.set("user_gender", user.get("gender"));
                                out.set("user_hair", user.get("hair"));
                            }
                            return out;
                        }));
        ViewChange<Void> half = flaky.changeSource("b4", () -> {
            photo(px, "b4", "u2", "half done");
            return null;
        });
        assertThat(half.intentCleared()).isFalse();
        assertThat(half.rebuild().failures())
                .singleElement()
                .satisfies(f -> assertThat(f.reason()).contains("simulated crash"));
        es.indices().refresh(r -> r.index(px + "-photos"));
        assertThat(views.pendingIntents()).hasSize(3);

        RepairReport r = views.repair();

        System.out.println("repair: " + r);
        assertThat(r.intentsReplayed()).isEqualTo(3);
        assertThat(r.orphans()).as("b3's view").isEqualTo(1);
        assertThat(r.lagging())
                .as("b2 and new (the rest was fixed by the intents)")
                .isEqualTo(2);
        for (int i = 0; i < 30; i++) {
            assertViewIsCurrent(views, px, "a" + i);
            assertViewIsCurrent(views, px, "b" + i);
        }
        assertViewIsCurrent(views, px, "new");
        assertThat(views.get("b3")).isEmpty();
        assertThat(views.pendingIntents()).isEmpty();
        RepairReport again = views.repair();
        assertThat(again.intentsReplayed() + again.lagging() + again.orphans()).isZero();
        assertThat(again.rebuild().written()).isZero();
    }

    /** A photo as the application types it. */
    record Photo(String user_id, String title, String popularity) {}

    record User(String gender, String hair) {}

    @Test
    void shouldReturnTheSourcePhotosOfAViewQueryInOneExtraRoundTrip() throws Exception {
        String px = fresh();
        MaterializedView<Photo, User> views = MaterializedView.of(
                Photo.class,
                User.class,
                v -> v.client(es)
                        .name(px)
                        .sourceIndex(px + "-photos")
                        .parentIndex(px + "-users")
                        .parentIdField("user_id")
                        .viewIndex(px + "-view")
                        .stateIndex(px + "-state")
                        .compose((photo, user) -> new java.util.TreeMap<>(java.util.Map.of(
                                "title",
                                photo.title(),
                                "popularity",
                                photo.popularity(),
                                "user_id",
                                photo.user_id(),
                                "user_gender",
                                user == null ? "unknown" : user.gender()))));
        user(px, "f", "female", "red");
        user(px, "m", "male", "black");
        for (int i = 0; i < 12; i++) {
            String id = "p" + i;
            String owner = i % 2 == 0 ? "f" : "m";
            String pop = i % 3 == 0 ? "high" : "low";
            views.changeSource(
                    id,
                    () -> es.index(x -> x.index(px + "-photos").id(id).document(new Photo(owner, "photo " + id, pop))));
        }
        es.indices().refresh(r -> r.index(px + "-view"));

        // Seed 003: Photo.objects.filter(user__gender='female', popularity='high')
        ViewPage<Photo> page = views.search(s -> s.size(20)
                .query(q -> q.bool(b -> b.filter(
                                f -> f.term(t -> t.field("user_gender").value("female")))
                        .filter(f -> f.term(t -> t.field("popularity").value("high"))))));

        assertThat(page.roundTrips()).isEqualTo(2);
        assertThat(page.totalViews()).isEqualTo(2);
        assertThat(page.hits()).extracting(Versioned::id).containsExactlyInAnyOrder("p0", "p6");
        assertThat(page.hits()).extracting(Versioned::value).allSatisfy(p -> {
            assertThat(p.user_id()).isEqualTo("f");
            assertThat(p.popularity()).isEqualTo("high");
        });
        assertThat(page.hits()).allSatisfy(h -> assertThat(h.index()).isEqualTo(px + "-photos"));
        assertThat(views.search(s ->
                                s.query(q -> q.term(t -> t.field("user_gender").value("nobody"))))
                        .roundTrips())
                .isEqualTo(1);
    }

    @Test
    void shouldDeleteTheViewOfADeletedPhotoAndKeepItDeletedAgainstStaleRebuilds() throws Exception {
        String px = fresh();
        MaterializedView<ObjectNode, ObjectNode> views = Photos.view(es, px);
        user(px, "u1", "female", "red");
        views.changeSource("p1", () -> {
            photo(px, "p1", "u1", "doomed");
            return null;
        });
        Rebuilder.Prepared beforeDelete = prepareOne(views.rebuilder(), List.of(new Rebuilder.Ref("p1", null)));

        ViewChange<Void> del = views.changeSource("p1", () -> {
            es.delete(d -> d.index(px + "-photos").id("p1"));
            return null;
        });

        assertThat(del.rebuild().deleted()).isEqualTo(1);
        assertThat(views.get("p1")).isEmpty();
        assertThat(writeOne(views.rebuilder(), beforeDelete).stale())
                .as("the tombstone's version wins")
                .isEqualTo(1);
        assertThat(views.get("p1")).isEmpty();
    }

    @Test
    void shouldDropTheCopiesWhenTheUserIsDeletedAndRaiseTheVersion() throws Exception {
        String px = fresh();
        MaterializedView<ObjectNode, ObjectNode> views = Photos.view(es, px);
        user(px, "u1", "female", "red");
        views.changeSource("p1", () -> {
            photo(px, "p1", "u1", "orphan to be");
            return null;
        });
        long before = views.get("p1").orElseThrow().version();
        views.changeParent("u1", () -> es.delete(d -> d.index(px + "-users").id("u1")));
        ViewDoc v = views.get("p1").orElseThrow();
        assertThat(v.version()).isGreaterThan(before);
        assertThat(v.document().has("user_gender")).isFalse();
        assertThat(v.document().path("title").asText()).isEqualTo("orphan to be");
        assertViewIsCurrent(views, px, "p1");
    }

    @Test
    void shouldRefuseAStateIndexWithMoreThanOneShardAndReportWriteFailures() throws Exception {
        String px = fresh();
        es.indices()
                .create(c -> c.index(px + "-state")
                        .settings(s -> s.numberOfShards("2").numberOfReplicas("0")));
        MaterializedView<ObjectNode, ObjectNode> views = Photos.view(es, px);
        assertThatThrownBy(() -> views.rebuild("p1"))
                .isInstanceOf(ViewException.class)
                .hasMessageContaining("exactly one");

        MaterializedView<ObjectNode, ObjectNode> ok = MaterializedView.of(
                ObjectNode.class,
                ObjectNode.class,
                v -> v.client(es)
                        .name(px)
                        .sourceIndex(px + "-photos")
                        .parentIndex(px + "-users")
                        .parentIdField("user_id")
                        .viewIndex(px + "-view")
                        .stateIndex(px + "-state1")
                        .copyParent("gender", "user_gender"));
        user(px, "u1", "female", "red");
        assertThatThrownBy(() -> ok.changeSource("p1", () -> {
                    throw new IOException("disk on fire");
                }))
                .isInstanceOf(ViewException.class)
                .hasMessageContaining("disk on fire")
                .hasRootCauseInstanceOf(IOException.class);
        assertThat(ok.pendingIntents())
                .as("the view was rebuilt from what is stored; nothing pending")
                .isEmpty();
    }
}
