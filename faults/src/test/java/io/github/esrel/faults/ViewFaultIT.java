package io.github.esrel.faults;

import static org.assertj.core.api.Assertions.assertThat;

import co.elastic.clients.elasticsearch.ElasticsearchClient;
import co.elastic.clients.elasticsearch.core.bulk.BulkOperation;
import co.elastic.clients.elasticsearch.core.search.Hit;
import co.elastic.clients.elasticsearch.core.search.ResponseBody;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.github.esrel.testenv.Cluster;
import io.github.esrel.testenv.EsCluster;
import io.github.esrel.testenv.EsrelTest;
import io.github.esrel.view.MaterializedView;
import io.github.esrel.view.RepairReport;
import java.io.IOException;
import java.io.StringReader;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/**
 * Materialized views ({@link MaterializedView}: photos with copies of their user's fields) through a rebuild
 * storm (writers editing, re-parenting, creating and deleting photos and changing users, each change
 * rebuilding its views) while the node holding most of the view index's primaries fails. Changes whose calls
 * fail during the fault leave intents or lagging views behind; after the node is back, one {@code repair()}
 * must leave every view equal to its source and its user, and no view without a source.
 */
@EsrelTest
class ViewFaultIT {

    private static final int PHOTOS = Integer.getInteger("esrel.faults.photos", 5_000);
    private static final int USERS = 50;
    private static final int WRITERS = 4;
    private static final String META = "esrel";

    @Cluster
    static final EsCluster cluster = FaultCluster.build();

    private final ElasticsearchClient es = cluster.client();

    @Test
    void shouldRepairEveryViewToItsSourceAfterANodeKillDuringARebuildStorm() throws Exception {
        scenario(NodeFault.kill(cluster), "view-kill");
    }

    @Test
    void shouldRepairEveryViewToItsSourceAfterAFrozenNodeDuringARebuildStorm() throws Exception {
        scenario(NodeFault.freeze(cluster), "view-freeze");
    }

    private void scenario(NodeFault fault, String px) throws Exception {
        String users = px + "-users";
        String photos = px + "-photos";
        String viewIndex = px + "-view";
        createIndices(users, photos, viewIndex);
        MaterializedView<ObjectNode, ObjectNode> views = MaterializedView.of(
                ObjectNode.class,
                ObjectNode.class,
                v -> v.client(es)
                        .name(px)
                        .sourceIndex(photos)
                        .parentIndex(users)
                        .parentIdField("user_id")
                        .viewIndex(viewIndex)
                        .stateIndex(px + "-state")
                        .copyParent("gender", "user_gender")
                        .copyParent("hair", "user_hair"));
        views.ensureStateIndex();
        load(users, photos);
        assertThat(views.sweep().lagging())
                .as("every view built before the storm")
                .isEqualTo(PHOTOS);
        cluster.waitForHealth("green", Duration.ofMinutes(5));

        AtomicBoolean stop = new AtomicBoolean();
        AtomicLong done = new AtomicLong();
        AtomicLong failed = new AtomicLong();
        AtomicLong faultAt = new AtomicLong();
        AtomicLong recoveredAt = new AtomicLong();
        ExecutorService pool = Executors.newFixedThreadPool(WRITERS);
        int victim = -1;
        try {
            List<Future<?>> writers = new ArrayList<>();
            for (int w = 0; w < WRITERS; w++) {
                long seed = w;
                writers.add(
                        pool.submit(() -> storm(views, users, photos, seed, stop, done, failed, faultAt, recoveredAt)));
            }
            Faults.await("the storm to get going", 300, () -> done.get() >= 50);
            victim = Faults.nodeWithMostPrimaries(es, viewIndex);
            fault.inject().accept(victim);
            faultAt.set(System.nanoTime());
            long atFault = done.get();
            // The storm goes on through the failover, until it has done as much again after it.
            Faults.await("the storm to go on after the fault", 300, () -> done.get() >= 2 * atFault);
            stop.set(true);
            for (Future<?> f : writers) {
                f.get(300, TimeUnit.SECONDS);
            }
        } finally {
            stop.set(true);
            pool.shutdownNow();
            if (victim >= 0) {
                fault.heal().accept(victim);
            }
        }

        RepairReport repair = views.repair();
        System.out.println("storm through " + fault.name() + " of node-" + victim + ": " + done + " changes done, "
                + failed + " failed; repair: " + repair);

        List<String> violations = compare(users, photos, viewIndex);
        Faults.figure(
                fault.name() + " node-" + victim + " (most primaries of the view index)",
                "materialized views: rebuild storm of " + WRITERS + " writers, then repair()",
                done.get() + repair.sourcesChecked(),
                violations.size(),
                recoveredAt.get() == 0 ? -1 : (recoveredAt.get() - faultAt.get()) / 1_000_000);
        assertThat(violations)
                .as("views not equal to their sources after repair()")
                .isEmpty();
        assertThat(views.pendingIntents()).as("intents left after repair()").isEmpty();
    }

    /** One writer of the storm: random changes through the view, each rebuilding what it touched. */
    private Void storm(
            MaterializedView<ObjectNode, ObjectNode> views,
            String users,
            String photos,
            long seed,
            AtomicBoolean stop,
            AtomicLong done,
            AtomicLong failed,
            AtomicLong faultAt,
            AtomicLong recoveredAt) {
        Random rnd = new Random(seed);
        for (int k = 0; !stop.get(); k++) {
            String pid = "p" + rnd.nextInt(PHOTOS);
            String uid = "u" + rnd.nextInt(USERS);
            String tag = seed + "-" + k;
            try {
                switch (rnd.nextInt(10)) {
                    case 0 ->
                        views.changeParent(
                                uid,
                                () -> es.index(i -> i.index(users)
                                        .id(uid)
                                        .document(user(rnd.nextBoolean() ? "female" : "male", "h" + tag))));
                    case 1 ->
                        views.changeSource(
                                pid, () -> es.delete(d -> d.index(photos).id(pid)));
                    case 2 ->
                        views.changeSource(
                                "n" + tag,
                                () -> es.index(
                                        i -> i.index(photos).id("n" + tag).document(photo(uid, "new " + tag))));
                    case 3, 4 ->
                        views.changeSource(
                                pid, () -> es.index(i -> i.index(photos).id(pid).document(photo(uid, "moved " + tag))));
                    default ->
                        views.changeSource(
                                pid,
                                () -> es.index(i -> i.index(photos)
                                        .id(pid)
                                        .document(photo(
                                                "u" + (Integer.parseInt(pid.substring(1)) % USERS), "edit " + tag))));
                }
                done.incrementAndGet();
                long now = System.nanoTime();
                if (faultAt.get() != 0 && now > faultAt.get()) {
                    recoveredAt.compareAndSet(0, now);
                }
            } catch (RuntimeException e) {
                // A change whose call failed: its intent (or the sweep) is repair()'s to finish.
                failed.incrementAndGet();
                try {
                    Thread.sleep(50);
                } catch (InterruptedException ie) {
                    Thread.currentThread().interrupt();
                    return null;
                }
            }
        }
        return null;
    }

    /** Every source against its view, read independently of the code under test. */
    private List<String> compare(String users, String photos, String viewIndex) throws IOException {
        Map<String, ObjectNode> userById = new HashMap<>();
        scroll(users, h -> userById.put(h.id(), h.source()));
        Map<String, ObjectNode> want = new HashMap<>();
        scroll(photos, h -> {
            ObjectNode view = h.source().deepCopy();
            ObjectNode u = userById.get(view.path("user_id").asText());
            if (u != null) {
                view.set("user_gender", u.get("gender"));
                view.set("user_hair", u.get("hair"));
            }
            want.put(h.id(), view);
        });
        List<String> violations = new ArrayList<>();
        Map<String, Boolean> seen = new HashMap<>();
        scroll(viewIndex, h -> {
            ObjectNode got = h.source().deepCopy();
            got.remove(META);
            seen.put(h.id(), true);
            ObjectNode expected = want.get(h.id());
            if (expected == null) {
                violations.add("view " + h.id() + " has no source");
            } else if (!expected.equals(got)) {
                violations.add("view " + h.id() + " is " + got + ", its source says " + expected);
            }
        });
        want.keySet().stream().filter(id -> !seen.containsKey(id)).forEach(id -> violations.add("no view of " + id));
        return violations;
    }

    private void scroll(String index, Consumer<Hit<ObjectNode>> each) throws IOException {
        es.indices().refresh(r -> r.index(index));
        ResponseBody<ObjectNode> page =
                es.search(s -> s.index(index).size(5000).scroll(t -> t.time("2m")), ObjectNode.class);
        String scroll = page.scrollId();
        try {
            while (!page.hits().hits().isEmpty()) {
                assertThat(page.shards().failed().intValue())
                        .as("shard failures of the check's scroll")
                        .isZero();
                page.hits().hits().forEach(each);
                String id = scroll;
                page = es.scroll(s -> s.scrollId(id).scroll(t -> t.time("2m")), ObjectNode.class);
                scroll = page.scrollId();
            }
        } finally {
            String id = scroll;
            es.clearScroll(c -> c.scrollId(id));
        }
    }

    private void createIndices(String users, String photos, String viewIndex) throws IOException {
        es.indices()
                .create(c -> c.index(users).settings(s -> s.numberOfShards("1").numberOfReplicas("1")));
        es.indices().create(c -> c.index(photos).withJson(new StringReader("""
            {"settings": {"number_of_shards": 3, "number_of_replicas": 1},
             "mappings": {"properties": {"user_id": {"type": "keyword"}, "title": {"type": "text"}}}}""")));
        es.indices().create(c -> c.index(viewIndex).withJson(new StringReader("""
            {"settings": {"number_of_shards": 3, "number_of_replicas": 1},
             "mappings": {"properties": {"user_id": {"type": "keyword"}, "title": {"type": "text"},
               "user_gender": {"type": "keyword"}, "user_hair": {"type": "keyword"},
               "esrel": {"type": "object", "enabled": false}}}}""")));
    }

    private void load(String users, String photos) throws IOException {
        List<BulkOperation> ops = new ArrayList<>();
        for (int u = 0; u < USERS; u++) {
            String id = "u" + u;
            ops.add(BulkOperation.of(o -> o.index(x -> x.index(users).id(id).document(user("female", "start")))));
        }
        for (int p = 0; p < PHOTOS; p++) {
            String id = "p" + p;
            ObjectNode doc = photo("u" + (p % USERS), "photo " + p);
            ops.add(BulkOperation.of(o -> o.index(x -> x.index(photos).id(id).document(doc))));
        }
        assertThat(es.bulk(b -> b.operations(ops)).errors()).as("fixture bulk").isFalse();
        es.indices().refresh(r -> r.index(users + "," + photos));
    }

    private static ObjectNode user(String gender, String hair) {
        return JsonNodeFactory.instance.objectNode().put("gender", gender).put("hair", hair);
    }

    private static ObjectNode photo(String userId, String title) {
        return JsonNodeFactory.instance.objectNode().put("user_id", userId).put("title", title);
    }
}
