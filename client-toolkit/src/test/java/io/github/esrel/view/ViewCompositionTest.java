package io.github.esrel.view;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import co.elastic.clients.elasticsearch.ElasticsearchClient;
import co.elastic.clients.elasticsearch.core.get.GetResult;
import co.elastic.clients.json.SimpleJsonpMapper;
import co.elastic.clients.json.jackson.JacksonJsonpMapper;
import co.elastic.clients.transport.rest_client.RestClientTransport;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.github.esrel.doc.DocumentConverter;
import io.github.esrel.occ.Versioned;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.function.BiFunction;
import org.apache.http.HttpHost;
import org.elasticsearch.client.RestClient;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

/** Composition of view documents, their bookkeeping and configuration checks: pure logic, no node. */
class ViewCompositionTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    // Never connected: nothing in these tests sends a request.
    private static final RestClient REST =
            RestClient.builder(new HttpHost("127.0.0.1", 9)).build();
    private static final ElasticsearchClient ES =
            new ElasticsearchClient(new RestClientTransport(REST, new JacksonJsonpMapper()));

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

    // The composer needs no client at all: built here as MaterializedView builds it for copyParent(...) and
    // compose(...).
    private static ViewComposer<ObjectNode, ObjectNode> photoUser() {
        return new ViewComposer<>(
                "photo-user",
                "esrel",
                ObjectNode.class,
                ObjectNode.class,
                List.of(
                        new ViewComposer.Copy("gender", "user_gender"),
                        new ViewComposer.Copy("address.city", "user.city")),
                null,
                DocumentConverter.of(new JacksonJsonpMapper()),
                "photos",
                "users");
    }

    private static <S, P> ViewComposer<S, P> composing(
            Class<S> sourceType, Class<P> parentType, BiFunction<S, P, ?> function) {
        return new ViewComposer<>(
                "typed",
                "esrel",
                sourceType,
                parentType,
                List.of(),
                function,
                DocumentConverter.of(new JacksonJsonpMapper()),
                "photos",
                "users");
    }

    private static Rebuilder.Snap snap(ObjectNode photo, String parentId, ObjectNode user) {
        Rebuilder.Stamp stamp =
                new Rebuilder.Stamp(true, 12, 1, parentId, user != null, user != null ? 40 : -1, user != null ? 1 : -1);
        return new Rebuilder.Snap(new Rebuilder.Ref("p1", "r1"), stamp, photo, user);
    }

    @Test
    void shouldCopyEveryPhotoFieldAndTheDeclaredUserFields() {
        ObjectNode view = photoUser()
                .compose(
                        snap(
                                json("{'title': 'sunset', 'user_id': 'u1', 'tags': ['a', 'b']}"),
                                "u1",
                                json("{'gender': 'female', 'address': {'city': 'Oslo'}, 'password': 'secret'}")),
                        99);
        ObjectNode meta = (ObjectNode) view.remove("esrel");
        assertThat(view)
                .isEqualTo(json("{'title': 'sunset', 'user_id': 'u1', 'tags': ['a', 'b'], 'user_gender': 'female',"
                        + " 'user': {'city': 'Oslo'}}"));
        assertThat(meta.path("version").asLong()).isEqualTo(99);
        assertThat(meta.path("source").path("routing").asText()).isEqualTo("r1");
        assertThat(ViewComposer.stampOf(meta))
                .as("the bookkeeping reads back as the stamp it was built from")
                .isEqualTo(new Rebuilder.Stamp(true, 12, 1, "u1", true, 40, 1));
    }

    @Test
    void shouldLeaveTheCopiesOutWhenThereIsNoUser() {
        ObjectNode view = photoUser()
                .compose(snap(json("{'title': 't', 'user_id': 'gone', 'user_gender': 'stale'}"), "gone", null), 5);
        ObjectNode meta = (ObjectNode) view.remove("esrel");
        assertThat(view).isEqualTo(json("{'title': 't', 'user_id': 'gone'}"));
        assertThat(ViewComposer.stampOf(meta)).isEqualTo(new Rebuilder.Stamp(true, 12, 1, "gone", false, -1, -1));
    }

    record Photo(String title, String user_id) {}

    record User(String gender) {}

    @Test
    void shouldComposeTypedDocumentsWithAFunction() {
        ViewComposer<Photo, User> v = composing(
                Photo.class,
                User.class,
                (photo, user) ->
                        Map.of("title", photo.title().toUpperCase(), "gender", user == null ? "?" : user.gender()));
        ObjectNode view =
                v.compose(snap(json("{'title': 'sunset', 'user_id': 'u1'}"), "u1", json("{'gender': 'male'}")), 1);
        view.remove("esrel");
        assertThat(view).isEqualTo(json("{'title': 'SUNSET', 'gender': 'male'}"));
    }

    @Test
    void shouldRefuseAViewThatCollidesWithItsBookkeeping() {
        assertThatThrownBy(() -> photoUser().compose(snap(json("{'title': 't', 'esrel': 1}"), null, null), 1))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("metaField");
    }

    @Test
    void shouldRefuseIncompleteConfigurations() {
        assertThatThrownBy(() -> MaterializedView.of(
                        ObjectNode.class,
                        ObjectNode.class,
                        b -> b.client(ES)
                                .name("v")
                                .sourceIndex("s")
                                .parentIndex("p")
                                .parentIdField("pid")
                                .viewIndex("v")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("copies nothing");
        assertThatThrownBy(() -> MaterializedView.of(
                        ObjectNode.class,
                        ObjectNode.class,
                        b -> b.client(ES)
                                .name("v")
                                .sourceIndex("s")
                                .parentIndex("p")
                                .parentIdField("pid")
                                .viewIndex("v")
                                .copyParent("a", "b")
                                .compose((s, p) -> s)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("default composition only");
        assertThatThrownBy(() -> MaterializedView.builder(ObjectNode.class, ObjectNode.class)
                        .name("not ok"))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> MaterializedView.builder(ObjectNode.class, ObjectNode.class)
                        .batchSize(0))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> MaterializedView.of(
                        ObjectNode.class,
                        ObjectNode.class,
                        b -> b.client(ES).name("v").copyParent("a", "b")))
                .isInstanceOf(NullPointerException.class)
                .hasMessageContaining("sourceIndex");
    }

    @Test
    void shouldAddUpRebuildResults() {
        RebuildResult a = new RebuildResult(3, 2, 0, 1, 0, 1, 0, List.of(), Duration.ofMillis(5));
        RebuildResult b =
                new RebuildResult(2, 0, 1, 0, 1, 2, 3, List.of(new ViewFailure("x", 0, "boom")), Duration.ofMillis(7));
        RebuildResult sum = a.plus(b);
        assertThat(sum)
                .isEqualTo(new RebuildResult(
                        5, 2, 1, 1, 1, 3, 3, List.of(new ViewFailure("x", 0, "boom")), Duration.ofMillis(12)));
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
        assertThat(ViewComposer.stampOf(null)).isNull();
    }

    @Test
    void shouldRemoveACopyTheUserLacksEvenWhenThePhotoCarriesOne() {
        ObjectNode view = photoUser()
                .compose(
                        snap(
                                json("{'title': 't', 'user_id': 'u1', 'user': {'city': 'stale'}}"),
                                "u1",
                                json("{'gender': 'male'}")),
                        3);
        view.remove("esrel");
        assertThat(view).isEqualTo(json("{'title': 't', 'user_id': 'u1', 'user_gender': 'male', 'user': {}}"));
    }

    @Test
    void shouldHandBackAStoredViewWithoutItsBookkeeping() {
        ViewComposer<ObjectNode, ObjectNode> composer = photoUser();
        ObjectNode stored = composer.compose(
                snap(json("{'title': 'sunset', 'user_id': 'u1'}"), "u1", json("{'gender': 'female'}")), 99);
        ViewDoc doc = composer.viewDoc("p1", 99, stored);
        assertThat(doc)
                .isEqualTo(new ViewDoc(
                        "p1", 99, json("{'title': 'sunset', 'user_id': 'u1', 'user_gender': 'female'}"), 12, "u1", 40));
        assertThat(stored.has("esrel")).as("the stored view is left as it was").isTrue();
        assertThat(composer.viewDoc("p2", 1, json("{'title': 'no bookkeeping'}")))
                .isEqualTo(new ViewDoc("p2", 1, json("{'title': 'no bookkeeping'}"), -1, null, -1));
    }

    @Test
    void shouldReadTheSourceAndItsVersionsBackFromAStoredView() {
        ViewComposer<ObjectNode, ObjectNode> composer = photoUser();
        ObjectNode stored = composer.compose(snap(json("{'title': 't'}"), null, null), 7);
        assertThat(composer.sourceOf("p1", stored)).isEqualTo(new Rebuilder.Ref("p1", "r1"));
        assertThat(composer.builtFrom(stored)).isEqualTo(new Rebuilder.Stamp(true, 12, 1, null, false, -1, -1));
        ObjectNode routingOnly = json("{'esrel': {'source': {'routing': 'r1'}}}");
        assertThat(composer.sourceOf("p1", routingOnly))
                .as("what a search fetches through routingPath()")
                .isEqualTo(new Rebuilder.Ref("p1", "r1"));
        assertThat(composer.routingPath()).isEqualTo("esrel.source.routing");
        assertThat(composer.sourceOf("p2", json("{'title': 'unrouted'}"))).isEqualTo(new Rebuilder.Ref("p2", null));
        assertThat(composer.builtFrom(json("{'title': 'built before bookkeeping'}")))
                .isNull();
    }

    @Test
    void shouldMapSourcesReadByAMultiGetToTheSourceType() {
        GetResult<ObjectNode> read = new GetResult.Builder<ObjectNode>()
                .index("photos")
                .id("p1")
                .found(true)
                .seqNo(5L)
                .primaryTerm(2L)
                .version(3L)
                .source(json("{'title': 'sunset', 'user_id': 'u1'}"))
                .build();
        Versioned<Photo> photo = composing(Photo.class, User.class, (p, u) -> p).source(read, "r1");
        assertThat(photo).isEqualTo(new Versioned<>("photos", "p1", "r1", new Photo("sunset", "u1"), 5, 2, 3));
        GetResult<ObjectNode> odd = new GetResult.Builder<ObjectNode>()
                .index("photos")
                .id("p2")
                .found(true)
                .source(json("{'title': ['a', 'b']}"))
                .build();
        assertThatThrownBy(() -> composing(Photo.class, User.class, (p, u) -> p).source(odd, null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("cannot map a document to " + Photo.class.getName());
    }

    @Test
    void shouldRefuseACompositionThatIsNotAJsonObject() {
        ObjectNode photo = json("{'title': 't', 'user_id': 'u1'}");
        assertThatThrownBy(() -> composing(ObjectNode.class, ObjectNode.class, (p, u) -> List.of(1, 2))
                        .compose(snap(photo, null, null), 1))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("must serialize to a JSON object, got ARRAY");
        assertThatThrownBy(() -> composing(ObjectNode.class, ObjectNode.class, (p, u) -> null)
                        .compose(snap(photo, null, null), 1))
                .isInstanceOf(NullPointerException.class)
                .hasMessageContaining("returned null");
    }

    @Test
    void shouldNameTheCompositionMistake() {
        DocumentConverter simple = DocumentConverter.of(new SimpleJsonpMapper());
        assertThatThrownBy(() -> new ViewComposer<>(
                        "v", "esrel", ObjectNode.class, ObjectNode.class, List.of(), null, simple, "s", "p"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("copies nothing");
    }

    @Test
    void shouldComposeTreesWithAMapperThatMapsNoClasses() {
        ViewComposer<ObjectNode, ObjectNode> trees = new ViewComposer<>(
                "v",
                "esrel",
                ObjectNode.class,
                ObjectNode.class,
                List.of(new ViewComposer.Copy("name", "user_name")),
                null,
                DocumentConverter.of(new SimpleJsonpMapper()),
                "photos",
                "users");
        ObjectNode view = trees.compose(snap(json("{'title':'t'}"), "u1", json("{'name':'ann'}")), 1);
        assertThat(view.get("title").asText()).isEqualTo("t");
        assertThat(view.get("user_name").asText()).isEqualTo("ann");
    }
}
