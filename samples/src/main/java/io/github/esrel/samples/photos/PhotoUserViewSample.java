package io.github.esrel.samples.photos;

import co.elastic.clients.elasticsearch.ElasticsearchClient;
import co.elastic.clients.elasticsearch._types.query_dsl.Query;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.github.esrel.occ.Versioned;
import io.github.esrel.samples.support.Indices;
import io.github.esrel.samples.support.Sample;
import io.github.esrel.samples.support.Table;
import io.github.esrel.view.Intent;
import io.github.esrel.view.MaterializedView;
import io.github.esrel.view.RebuildResult;
import io.github.esrel.view.RepairReport;
import io.github.esrel.view.ViewDoc;
import io.github.esrel.view.ViewPage;
import io.github.esrel.view.ViewSnapshot;
import java.io.IOException;
import java.io.PrintStream;
import java.io.StringReader;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Seed 003 (JOINs via denormalization, parts 2 and 3): a PhotoUserView per photo holding all photo
 * fields and copies of its user's fields, so "popular photos of female users" is one query. The seed's
 * two dangers, played out: background tasks that patch single fields lose updates, and a crash between
 * saving a photo and updating its view leaves the view stale forever. esrel rebuilds views whole,
 * versions them with a clock read between two snapshot reads (a stale rebuild can never win), and
 * records an intent before every write so that a repair sweep finishes what a crash interrupted.
 */
public final class PhotoUserViewSample extends Sample {

    private static final String USERS = "photo-users";
    private static final String PHOTOS = "photo-photos";
    private static final String VIEW = "photo-user-view";
    private static final String STATE = "photo-view-state";
    private static final int USER_COUNT = 8;
    private static final int PHOTO_COUNT = 200;

    /** A photo, as the application stores it. */
    public record Photo(String title, String user_id, String popularity) {}

    /** A user. */
    public record User(String name, String gender, String hair) {}

    /** Creates the sample. */
    public PhotoUserViewSample() {
        super(
                "photos",
                "Photo/user materialized view: concurrent edits, a late stale rebuild refused, a crash repaired");
    }

    @Override
    public void run(ElasticsearchClient es, PrintStream out) throws Exception {
        setUp(es);
        MaterializedView<Photo, User> views = MaterializedView.of(
                Photo.class,
                User.class,
                v -> v.client(es)
                        .name("photo-user")
                        .sourceIndex(PHOTOS)
                        .parentIndex(USERS)
                        .parentIdField("user_id")
                        .viewIndex(VIEW)
                        .stateIndex(STATE)
                        .copyParent("gender", "user_gender")
                        .copyParent("hair", "user_hair"));
        views.ensureStateIndex();
        Random rnd = new Random(3);
        for (int u = 0; u < USER_COUNT; u++) {
            User user = new User("user " + u, u % 2 == 0 ? "female" : "male", "brown");
            String id = "u" + u;
            es.index(i -> i.index(USERS).id(id).document(user));
        }
        for (int p = 0; p < PHOTO_COUNT; p++) {
            Photo photo = new Photo("photo " + p, "u" + rnd.nextInt(USER_COUNT), rnd.nextInt(4) == 0 ? "high" : "low");
            String id = "p" + p;
            es.index(i -> i.index(PHOTOS).id(id).document(photo));
        }
        es.indices().refresh(r -> r.index(PHOTOS));
        RepairReport built = views.sweep();
        out.printf(
                "%n1. %d users, %d photos; the first sweep builds %d views (PhotoUserView = photo fields + user_gender,"
                        + " user_hair).%n",
                USER_COUNT, PHOTO_COUNT, built.rebuild().written());
        query(es, views, out, "   ");

        out.println("\n2. The seed's lost update, with views patched field by field by two background tasks:");
        naivePatching(es, out);

        out.println(
                "\n3. esrel: 4 threads edit titles and popularity, re-parent photos and change users' genders, every"
                        + " write through the view, while other rebuilds race with them.");
        ViewSnapshot slow = views.snapshot("p5"); // a slow rebuild: reads its snapshot now, writes it at the end
        AtomicInteger writes = new AtomicInteger();
        List<Thread> threads = new ArrayList<>();
        for (int w = 0; w < 4; w++) {
            Random r = new Random(100 + w);
            Thread t = new Thread(() -> {
                for (int k = 0; k < 25; k++) {
                    String pid = "p" + r.nextInt(PHOTO_COUNT);
                    String uid = "u" + r.nextInt(USER_COUNT);
                    switch (r.nextInt(3)) {
                        case 0 ->
                            views.changeSource(
                                    pid,
                                    () -> es.index(i -> i.index(PHOTOS)
                                            .id(pid)
                                            .document(new Photo(
                                                    "retitled " + pid, uid, r.nextBoolean() ? "high" : "low"))));
                        case 1 ->
                            views.changeParent(
                                    uid,
                                    () -> es.index(i -> i.index(USERS)
                                            .id(uid)
                                            .document(new User(
                                                    "user " + uid, r.nextBoolean() ? "female" : "male", "grey"))));
                        default -> views.rebuild(pid);
                    }
                    writes.incrementAndGet();
                }
            });
            t.start();
            threads.add(t);
        }
        views.changeSource(
                "p5",
                () -> es.index(i -> i.index(PHOTOS)
                        .id("p5")
                        .document(new Photo("p5, edited after the slow" + " rebuild read it", "u3", "high"))));
        for (Thread t : threads) {
            t.join();
        }
        RebuildResult late = views.write(slow);
        int wrong = verify(es, views);
        out.printf("   %d operations; views not matching their photo and user afterwards: %d%n", writes.get(), wrong);
        out.printf(
                "   the slow rebuild of p5 (snapshot version %d) arrives last: %s; the view keeps version %d, title \"%s\"%n",
                slow.version(),
                late.stale() == 1 ? "refused as stale" : "APPLIED",
                views.get("p5").orElseThrow().version(),
                views.get("p5").orElseThrow().document().path("title").asText());
        if (wrong != 0 || late.stale() != 1) {
            throw new IllegalStateException(
                    wrong + " views do not match their sources after concurrent edits; late write: " + late);
        }

        out.println(
                "\n4. A simulated crash: the intent is recorded and the source written, then the process \"dies\" before"
                        + " the view update (complete() is never called).");
        String victim = "p0";
        Intent photoIntent = views.beginSourceChange(victim);
        es.index(i -> i.index(PHOTOS).id(victim).document(new Photo("crashed write", "u0", "high")));
        Intent userIntent = views.beginParentChange("u1");
        es.index(i -> i.index(USERS).id("u1").document(new User("user u1", "female", "purple")));
        // and one write that bypassed the view entirely
        String sneaky = "p1";
        Photo before = es.get(g -> g.index(PHOTOS).id(sneaky), Photo.class).source();
        es.index(i -> i.index(PHOTOS)
                .id(sneaky)
                .document(new Photo("edited behind the view's back", before.user_id(), "high")));
        int staleViews = verify(es, views);
        ViewDoc v = views.get(victim).orElseThrow();
        out.printf(
                "   view of %s still says title=\"%s\"; views not matching their sources: %d; pending intents: %d%n",
                victim,
                v.document().path("title").asText(),
                staleViews,
                views.pendingIntents().size());
        if (staleViews == 0) {
            throw new IllegalStateException("the simulated crash should have left stale views");
        }
        RepairReport repair = views.repair();
        int after = verify(es, views);
        Table t = Table.of("repair", "value");
        t.row(
                "intents replayed (" + photoIntent.target() + " " + victim + ", " + userIntent.target() + " u1)",
                repair.intentsReplayed());
        t.row("sources checked by the sweep", repair.sourcesChecked());
        t.row("views lagging their sources (found by the sweep)", repair.lagging());
        t.row("views rebuilt", repair.rebuild().written());
        t.row("views not matching their sources afterwards", after);
        t.row("pending intents afterwards", views.pendingIntents().size());
        t.print(out);
        if (after != 0
                || repair.intentsReplayed() != 2
                || !views.pendingIntents().isEmpty()) {
            throw new IllegalStateException("repair left " + after + " wrong views; " + repair);
        }
        query(es, views, out, "   after repair: ");
    }

    /** Seed 003 part 3: task 1 patches user_gender, task 2 patches title, both read the view first. */
    private static void naivePatching(ElasticsearchClient es, PrintStream out) throws IOException {
        String index = "photo-naive-view";
        es.index(i -> i.index(index).id("p").document(java.util.Map.of("title", "old title", "user_gender", "male")));
        ObjectNode seenBy1 =
                es.get(g -> g.index(index).id("p"), ObjectNode.class).source(); // task 1: the user changed gender
        ObjectNode seenBy2 =
                es.get(g -> g.index(index).id("p"), ObjectNode.class).source(); // task 2: the photo got a title
        seenBy1.put("user_gender", "female");
        es.index(i -> i.index(index).id("p").document(seenBy1));
        seenBy2.put("title", "new title");
        es.index(i -> i.index(index).id("p").document(seenBy2));
        ObjectNode end = es.get(g -> g.index(index).id("p"), ObjectNode.class).source();
        out.printf(
                "   truth: title=\"new title\", user_gender=\"female\"; view after both tasks: title=\"%s\", user_gender=\"%s\""
                        + " (task 2 wrote back the gender it had read)%n",
                end.path("title").asText(), end.path("user_gender").asText());
        if (!end.path("user_gender").asText().equals("male")) {
            throw new IllegalStateException("the naive patching was expected to lose the gender change");
        }
        out.println("   esrel never patches: every rebuild reads the photo and the user and writes the whole view.");
    }

    private static void query(
            ElasticsearchClient es, MaterializedView<Photo, User> views, PrintStream out, String indent)
            throws IOException {
        es.indices().refresh(r -> r.index(VIEW));
        ViewPage<Photo> page = views.search(s -> s.size(500)
                .query(q -> q.bool(b -> b.filter(
                                f -> f.term(t -> t.field("user_gender").value("female")))
                        .filter(f -> f.term(t -> t.field("popularity").value("high"))))));
        long direct = expectedPopularFemalePhotos(es);
        out.printf(
                "%spopular photos of female users via the view: %d photos in %d round trips (pk__in); checked against"
                        + " the sources: %d%n",
                indent, page.hits().size(), page.roundTrips(), direct);
        for (Versioned<Photo> h : page.hits().subList(0, Math.min(3, page.hits().size()))) {
            out.printf("%s  %s %s%n", indent, h.id(), h.value());
        }
        if (page.hits().size() != direct) {
            throw new IllegalStateException(
                    "the view query returned " + page.hits().size() + " photos, the sources say " + direct);
        }
    }

    /** The same answer with an application-side join, to check the view's. */
    private static long expectedPopularFemalePhotos(ElasticsearchClient es) throws IOException {
        es.indices().refresh(r -> r.index(USERS + "," + PHOTOS));
        TreeSet<String> females = new TreeSet<>();
        es.search(
                        s -> s.index(USERS)
                                .size(1000)
                                .query(q ->
                                        q.term(t -> t.field("gender.keyword").value("female"))),
                        User.class)
                .hits()
                .hits()
                .forEach(h -> females.add(h.id()));
        if (females.isEmpty()) {
            return 0;
        }
        Query q = Query.of(b ->
                b.bool(x -> x.filter(f -> f.term(t -> t.field("popularity").value("high")))
                        .filter(f -> f.terms(t -> t.field("user_id")
                                .terms(v -> v.value(females.stream()
                                        .map(co.elastic.clients.elasticsearch._types.FieldValue::of)
                                        .toList()))))));
        return es.count(c -> c.index(PHOTOS).query(q)).count();
    }

    /** Views whose content does not match the current photo and user. */
    private static int verify(ElasticsearchClient es, MaterializedView<Photo, User> views) throws IOException {
        int wrong = 0;
        for (int p = 0; p < PHOTO_COUNT; p++) {
            String id = "p" + p;
            Photo photo = es.get(g -> g.index(PHOTOS).id(id), Photo.class).source();
            User user =
                    es.get(g -> g.index(USERS).id(photo.user_id()), User.class).source();
            ObjectNode v = views.get(id).map(ViewDoc::document).orElse(null);
            boolean ok = v != null
                    && v.path("title").asText().equals(photo.title())
                    && v.path("user_id").asText().equals(photo.user_id())
                    && v.path("popularity").asText().equals(photo.popularity())
                    && v.path("user_gender").asText().equals(user.gender())
                    && v.path("user_hair").asText().equals(user.hair());
            if (!ok) {
                wrong++;
            }
        }
        return wrong;
    }

    private static void setUp(ElasticsearchClient es) throws IOException {
        Indices.deleteIfExist(es, USERS, PHOTOS, VIEW, STATE, "photo-naive-view");
        Indices.createOneShard(es, USERS);
        es.indices().create(c -> c.index(PHOTOS).withJson(new StringReader("""
            {"settings": {"number_of_shards": 2, "number_of_replicas": 0},
             "mappings": {"properties": {"user_id": {"type": "keyword"}, "title": {"type": "text"},
               "popularity": {"type": "keyword"}}}}""")));
        es.indices().create(c -> c.index(VIEW).withJson(new StringReader("""
            {"settings": {"number_of_shards": 2, "number_of_replicas": 0},
             "mappings": {"properties": {"user_id": {"type": "keyword"}, "title": {"type": "text"},
               "popularity": {"type": "keyword"}, "user_gender": {"type": "keyword"}, "user_hair": {"type": "keyword"},
               "esrel": {"type": "object", "enabled": false}}}}""")));
    }
}
