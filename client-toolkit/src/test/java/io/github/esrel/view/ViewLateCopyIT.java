package io.github.esrel.view;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import co.elastic.clients.elasticsearch.ElasticsearchClient;
import co.elastic.clients.elasticsearch._types.ElasticsearchException;
import co.elastic.clients.elasticsearch.core.search.Hit;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.github.esrel.ReplayingTransport;
import io.github.esrel.testenv.Cluster;
import io.github.esrel.testenv.EsCluster;
import io.github.esrel.testenv.EsrelTest;
import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * A copy of an intent's request applied again after the intent was cleared (issue 42): the copy a frozen node runs
 * late, replayed here as the very request the view sent ({@link ReplayingTransport}). It is refused while the cleared
 * intent's marker is kept, recognised as stale once the marker is collected, and {@code repair()} leaves no intent
 * behind either way. The wall clock the intents are stamped with is the test's, so that intents age without waiting.
 */
@EsrelTest
class ViewLateCopyIT {

    @Cluster
    static final EsCluster cluster = EsCluster.builder().shared().build();

    private static final AtomicInteger PREFIX = new AtomicInteger();
    private static final Duration RETENTION = Duration.ofMinutes(10);

    private final ElasticsearchClient es = cluster.client();
    private final ReplayingTransport transport = ReplayingTransport.of(es);
    private final TestClock clock = new TestClock(Instant.now());

    private String fresh() throws IOException {
        String prefix = "lc" + PREFIX.incrementAndGet();
        Photos.create(es, prefix);
        es.index(i -> i.index(prefix + "-users").id("u1").document(Photos.user("female", "red")));
        return prefix;
    }

    private MaterializedView<ObjectNode, ObjectNode> view(String prefix) {
        return MaterializedView.of(
                ObjectNode.class,
                ObjectNode.class,
                v -> v.client(transport.client())
                        .name(prefix)
                        .sourceIndex(prefix + "-photos")
                        .parentIndex(prefix + "-users")
                        .parentIdField("user_id")
                        .viewIndex(prefix + "-view")
                        .stateIndex(prefix + "-state")
                        .copyParent("gender", "user_gender")
                        .copyParent("hair", "user_hair")
                        .intentRetention(RETENTION)
                        .clock(clock));
    }

    private ViewChange<Object> changePhoto(
            MaterializedView<ObjectNode, ObjectNode> views, String prefix, String id, String title) {
        return views.changeSource(
                id,
                () -> es.index(i -> i.index(prefix + "-photos").id(id).document(Photos.photo("u1", title, "high"))));
    }

    /** The request that recorded the intent, as the view sent it. */
    private ReplayingTransport.Sent intentRequest(String intentId) {
        String uuid = intentId.substring(intentId.lastIndexOf(':') + 1); // the colons may be escaped in the URL
        List<ReplayingTransport.Sent> sent =
                transport.sent(s -> s.url().contains("/_create/") && s.url().endsWith(uuid));
        assertThat(sent).as("the create request of intent %s", intentId).hasSize(1);
        return sent.get(0);
    }

    /** The documents of the state index of one kind, read independently of the code under test. */
    private List<Hit<ObjectNode>> stateDocs(String prefix, String kind) throws IOException {
        es.indices().refresh(r -> r.index(prefix + "-state"));
        return es.search(
                        s -> s.index(prefix + "-state")
                                .size(100)
                                .query(q -> q.term(t -> t.field("kind").value(kind))),
                        ObjectNode.class)
                .hits()
                .hits();
    }

    private boolean exists(String prefix, String id) throws IOException {
        return es.get(g -> g.index(prefix + "-state").id(id), ObjectNode.class).found();
    }

    @Test
    void shouldRefuseALateCopyOfAnIntentAfterTheIntentWasCleared() throws Exception {
        String px = fresh();
        MaterializedView<ObjectNode, ObjectNode> views = view(px);
        ViewChange<Object> c = changePhoto(views, px, "p1", "sunset");
        assertThat(c.intentCleared()).isTrue();
        ReplayingTransport.Sent copy = intentRequest(c.intentId());

        assertThatThrownBy(() -> transport.replay(copy))
                .as("the late copy of the intent's request")
                .isInstanceOfSatisfying(
                        ElasticsearchException.class,
                        e -> assertThat(e.status()).isEqualTo(409));

        assertThat(views.pendingIntents()).isEmpty();
        RepairReport repair = views.repair();
        assertThat(repair.intentsReplayed()).isZero();
        assertThat(stateDocs(px, "intent")).as("intents left after repair()").isEmpty();
        assertThat(stateDocs(px, "cleared")).extracting(Hit::id).containsExactly(c.intentId());
    }

    @Test
    void shouldRecogniseALateCopyAsStaleOnceTheClearedIntentsMarkerWasCollected() throws Exception {
        String px = fresh();
        MaterializedView<ObjectNode, ObjectNode> views = view(px);
        ViewChange<Object> c = changePhoto(views, px, "p1", "sunset");
        ReplayingTransport.Sent copy = intentRequest(c.intentId());

        clock.advance(RETENTION.plusMinutes(1));
        views.repair(); // collects the marker, older than the retention, after raising the floor
        assertThat(exists(px, c.intentId())).as("the marker, collected").isFalse();

        transport.replay(copy); // nothing refuses it any more: the id is free
        assertThat(stateDocs(px, "intent")).extracting(Hit::id).containsExactly(c.intentId());
        assertThat(views.pendingIntents()).as("the late copy, below the floor").isEmpty();

        RepairReport repair = views.repair();
        assertThat(repair.intentsReplayed()).isZero();
        assertThat(stateDocs(px, "intent")).as("intents left after repair()").isEmpty();
        assertThat(views.get("p1").orElseThrow().document().path("title").asText())
                .isEqualTo("sunset");
    }

    @Test
    void shouldNeverRaiseTheFloorPastAPendingIntent() throws Exception {
        String px = fresh();
        MaterializedView<ObjectNode, ObjectNode> views = view(px);
        Intent pending = views.beginSourceChange("p1"); // a writer that crashed before its write
        clock.advance(Duration.ofSeconds(1));
        ViewChange<Object> later = changePhoto(views, px, "p2", "dunes");
        ReplayingTransport.Sent copy = intentRequest(later.intentId());

        clock.advance(RETENTION.plusMinutes(1));
        views.replayIntents(Duration.ofDays(1)); // replays nothing this young, then collects
        assertThat(exists(px, later.intentId()))
                .as("the later change's marker, collected")
                .isFalse();
        assertThat(views.pendingIntents()).extracting(Intent::id).containsExactly(pending.id());

        // The one case a late copy comes back as pending: an older intent held the floor back. Harmless: the repair
        // replays both and leaves nothing.
        transport.replay(copy);
        assertThat(views.pendingIntents())
                .extracting(Intent::id)
                .containsExactlyInAnyOrder(pending.id(), later.intentId());
        RepairReport repair = views.repair();
        assertThat(repair.intentsReplayed()).isEqualTo(2);
        assertThat(views.pendingIntents()).isEmpty();
        assertThat(stateDocs(px, "intent")).as("intents left after repair()").isEmpty();
        assertThat(views.get("p2").orElseThrow().document().path("title").asText())
                .isEqualTo("dunes");
    }

    @Test
    void shouldTakeAResentCopyOfItsOwnIntentAsTheIntentRecorded() throws Exception {
        String px = fresh();
        MaterializedView<ObjectNode, ObjectNode> views = view(px);
        // The intent's request is applied, its answer lost, and the same request sent again: the second copy is
        // refused (409) because the first one created the intent.
        transport.sendTwice(s -> s.url().contains("/_create/"));

        ViewChange<Object> c = changePhoto(views, px, "p1", "sunset");

        assertThat(c.intentCleared()).isTrue();
        assertThat(transport.sent(s -> s.url().contains("/_create/"))).hasSize(1);
        assertThat(views.pendingIntents()).isEmpty();
        assertThat(stateDocs(px, "intent")).isEmpty();
        assertThat(views.get("p1").orElseThrow().document().path("title").asText())
                .isEqualTo("sunset");
    }

    /** A wall clock the test moves. */
    private static final class TestClock extends Clock {
        private final AtomicReference<Instant> now;

        TestClock(Instant start) {
            this.now = new AtomicReference<>(start);
        }

        void advance(Duration d) {
            now.updateAndGet(t -> t.plus(d));
        }

        @Override
        public ZoneId getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(ZoneId zone) {
            return this;
        }

        @Override
        public Instant instant() {
            return now.get();
        }
    }
}
