package io.github.esrel.view;

import co.elastic.clients.elasticsearch.ElasticsearchClient;
import co.elastic.clients.json.jackson.JacksonJsonpMapper;
import co.elastic.clients.transport.rest_client.RestClientTransport;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.apache.http.HttpHost;
import org.elasticsearch.client.RestClient;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Composition of view documents, their bookkeeping and configuration checks: pure logic, no node. */
class ViewCompositionTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    // Never connected: nothing in these tests sends a request.
    private static final RestClient REST = RestClient.builder(new HttpHost("127.0.0.1", 9)).build();
    private static final ElasticsearchClient ES = new ElasticsearchClient(new RestClientTransport(REST, new JacksonJsonpMapper()));

    @AfterAll
    static void close() throws Exception {
        REST.close();
    }

    private static ObjectNode json(String s) {
        try {
            return (ObjectNode) JSON.readTree(s.replace('\'', '"'));
        } catch (Exception e) {
            throw new IllegalArgumentException(e);
        }
    }

    private static MaterializedView<ObjectNode, ObjectNode> photoUser() {
        return MaterializedView.of(ObjectNode.class, ObjectNode.class, v -> v.client(ES).name("photo-user").sourceIndex("photos")
            .parentIndex("users").parentIdField("user_id").viewIndex("view").copyParent("gender", "user_gender")
            .copyParent("address.city", "user.city"));
    }

    private static Rebuilder.Snap snap(ObjectNode photo, String parentId, ObjectNode user) {
        Rebuilder.Stamp stamp = new Rebuilder.Stamp(true, 12, 1, parentId, user != null, user != null ? 40 : -1, user != null ? 1 : -1);
        return new Rebuilder.Snap(new Rebuilder.Ref("p1", "r1"), stamp, photo, user);
    }

    @Test
    void shouldCopyEveryPhotoFieldAndTheDeclaredUserFields() {
        ObjectNode view = photoUser().compose(snap(json("{'title': 'sunset', 'user_id': 'u1', 'tags': ['a', 'b']}"), "u1",
            json("{'gender': 'female', 'address': {'city': 'Oslo'}, 'password': 'secret'}")), 99);
        ObjectNode meta = (ObjectNode) view.remove("esrel");
        assertThat(view).isEqualTo(json("{'title': 'sunset', 'user_id': 'u1', 'tags': ['a', 'b'], 'user_gender': 'female',"
            + " 'user': {'city': 'Oslo'}}"));
        assertThat(meta.path("version").asLong()).isEqualTo(99);
        assertThat(meta.path("source").path("routing").asText()).isEqualTo("r1");
        assertThat(Rebuilder.stampOf(meta)).as("the bookkeeping reads back as the stamp it was built from")
            .isEqualTo(new Rebuilder.Stamp(true, 12, 1, "u1", true, 40, 1));
    }

    @Test
    void shouldLeaveTheCopiesOutWhenThereIsNoUser() {
        ObjectNode view = photoUser().compose(snap(json("{'title': 't', 'user_id': 'gone', 'user_gender': 'stale'}"), "gone", null), 5);
        ObjectNode meta = (ObjectNode) view.remove("esrel");
        assertThat(view).isEqualTo(json("{'title': 't', 'user_id': 'gone'}"));
        assertThat(Rebuilder.stampOf(meta)).isEqualTo(new Rebuilder.Stamp(true, 12, 1, "gone", false, -1, -1));
    }

    record Photo(String title, String user_id) {}

    record User(String gender) {}

    @Test
    void shouldComposeTypedDocumentsWithAFunction() {
        MaterializedView<Photo, User> v = MaterializedView.of(Photo.class, User.class, b -> b.client(ES).name("typed")
            .sourceIndex("photos").parentIndex("users").parentIdField("user_id").viewIndex("view")
            .compose((photo, user) -> Map.of("title", photo.title().toUpperCase(), "gender", user == null ? "?" : user.gender())));
        ObjectNode view = v.compose(snap(json("{'title': 'sunset', 'user_id': 'u1'}"), "u1", json("{'gender': 'male'}")), 1);
        view.remove("esrel");
        assertThat(view).isEqualTo(json("{'title': 'SUNSET', 'gender': 'male'}"));
    }

    @Test
    void shouldRefuseAViewThatCollidesWithItsBookkeeping() {
        assertThatThrownBy(() -> photoUser().compose(snap(json("{'title': 't', 'esrel': 1}"), null, null), 1))
            .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("metaField");
    }

    @Test
    void shouldRefuseIncompleteConfigurations() {
        assertThatThrownBy(() -> MaterializedView.of(ObjectNode.class, ObjectNode.class, b -> b.client(ES).name("v")
            .sourceIndex("s").parentIndex("p").parentIdField("pid").viewIndex("v")))
            .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("copies nothing");
        assertThatThrownBy(() -> MaterializedView.of(ObjectNode.class, ObjectNode.class, b -> b.client(ES).name("v")
            .sourceIndex("s").parentIndex("p").parentIdField("pid").viewIndex("v").copyParent("a", "b").compose((s, p) -> s)))
            .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("default composition only");
        assertThatThrownBy(() -> MaterializedView.builder(ObjectNode.class, ObjectNode.class).name("not ok"))
            .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> MaterializedView.builder(ObjectNode.class, ObjectNode.class).batchSize(0))
            .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> MaterializedView.of(ObjectNode.class, ObjectNode.class, b -> b.client(ES).name("v")
            .copyParent("a", "b"))).isInstanceOf(NullPointerException.class).hasMessageContaining("sourceIndex");
    }

    @Test
    void shouldAddUpRebuildResults() {
        RebuildResult a = new RebuildResult(3, 2, 0, 1, 0, 1, 0, List.of(), Duration.ofMillis(5));
        RebuildResult b = new RebuildResult(2, 0, 1, 0, 1, 2, 3, List.of(new ViewFailure("x", 0, "boom")), Duration.ofMillis(7));
        RebuildResult sum = a.plus(b);
        assertThat(sum).isEqualTo(new RebuildResult(5, 2, 1, 1, 1, 3, 3, List.of(new ViewFailure("x", 0, "boom")),
            Duration.ofMillis(12)));
        assertThat(a.complete()).isTrue();
        assertThat(sum.complete()).isFalse();
    }

    @Test
    void shouldTreatSnapshotsAsEqualOnlyWhenNothingMoved() {
        Rebuilder.Stamp s = new Rebuilder.Stamp(true, 12, 1, "u1", true, 40, 1);
        assertThat(s).isEqualTo(new Rebuilder.Stamp(true, 12, 1, "u1", true, 40, 1));
        assertThat(s).isNotEqualTo(new Rebuilder.Stamp(true, 13, 1, "u1", true, 40, 1));
        assertThat(s).as("re-parented").isNotEqualTo(new Rebuilder.Stamp(true, 12, 1, "u2", true, 40, 1));
        assertThat(s).as("user changed").isNotEqualTo(new Rebuilder.Stamp(true, 12, 1, "u1", true, 41, 1));
        assertThat(s).as("primary failed over").isNotEqualTo(new Rebuilder.Stamp(true, 12, 2, "u1", true, 40, 1));
        assertThat(Rebuilder.stampOf(null)).isNull();
    }
}
