package io.github.esrel.occ;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import co.elastic.clients.elasticsearch.ElasticsearchClient;
import co.elastic.clients.elasticsearch.core.GetResponse;
import co.elastic.clients.json.JsonpMapper;
import co.elastic.clients.json.jackson.JacksonJsonpMapper;
import co.elastic.clients.transport.rest_client.RestClientTransport;
import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.github.esrel.ApplicationMappers;
import io.github.esrel.internal.JsonTrees;
import io.github.esrel.testenv.Cluster;
import io.github.esrel.testenv.EsCluster;
import io.github.esrel.testenv.EsrelTest;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Named;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Nothing a class does not map is lost by a typed write (issue 29), on a real node: a document holding fields of
 * another service ({@code _class}, a string, a nested object, an array, a {@code false} and a {@code 0}), an unknown
 * field inside a mapped object and unknown fields inside the elements of a mapped array goes through {@code update},
 * {@code upsert}, {@code replace}, {@link BulkUpdate} and 16 concurrent writers, with every mapper that lets a class
 * read such a document: Jackson 2 with {@code FAIL_ON_UNKNOWN_PROPERTIES} off, Jackson 2 with
 * {@code @JsonIgnoreProperties(ignoreUnknown = true)}, Jackson 3 (Spring Boot 4's default, lenient) and a JSON-P mapper
 * esrel cannot see into. Each check reads the stored JSON with a plain client and compares all of it.
 */
@EsrelTest
class UnmappedFieldsIT {

    @Cluster
    static final EsCluster cluster = EsCluster.builder().shared().build();

    private static final AtomicInteger INDICES = new AtomicInteger();

    /** Another service's document: the class below maps only name, votes, stats.views and comments[].text. */
    private static final String STORED = """
            {"_class":"com.example.Design","name":"es","votes":0,
             "note":"from the billing service","owner":{"team":"search","pager":{"primary":"ann"}},
             "tags":["a","b"],"archived":false,"rank":0,
             "stats":{"views":10,"region":"eu"},
             "comments":[{"text":"first","by":"ann","likes":3},{"text":"second","by":"bob","likes":0}]}""";

    record Stats(long views) {}

    record Comment(String text) {}

    record Design(String name, long votes, Stats stats, List<Comment> comments) {
        Design vote() {
            return new Design(name, votes + 1, new Stats(stats.views() + 1), comments);
        }

        Design comments(List<Comment> c) {
            return new Design(name, votes, stats, c);
        }
    }

    /** The same document, as a class that leaves out fields it holds no value for. */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    record Sparse(String name, Long votes) {}

    @JsonIgnoreProperties(ignoreUnknown = true)
    abstract static class IgnoreUnknown {}

    static Stream<Arguments> mappers() {
        ObjectMapper lenient = new ObjectMapper().configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, false);
        ObjectMapper annotated = new ObjectMapper()
                .addMixIn(Design.class, IgnoreUnknown.class)
                .addMixIn(Stats.class, IgnoreUnknown.class)
                .addMixIn(Comment.class, IgnoreUnknown.class)
                .addMixIn(Sparse.class, IgnoreUnknown.class);
        return Stream.of(
                Arguments.of(Named.of("jackson2, FAIL_ON_UNKNOWN_PROPERTIES off", new JacksonJsonpMapper(lenient))),
                Arguments.of(
                        Named.of("jackson2, @JsonIgnoreProperties(ignoreUnknown)", new JacksonJsonpMapper(annotated))),
                Arguments.of(Named.of("jackson3 (Spring Boot 4's default)", jackson3())),
                Arguments.of(Named.of(
                        "JSON-P mapper esrel cannot see into",
                        new ApplicationMappers.Foreign(new JacksonJsonpMapper(lenient)))));
    }

    /**
     * The client's Jackson 3 mapper, by name: elasticsearch-java has it from 8.19 and 9.1 on, and these tests also
     * run on older clients (run-tests' 8.15.0 and 9.0.0 passes), where the case is skipped.
     */
    private static JsonpMapper jackson3() {
        try {
            return (JsonpMapper) Class.forName("co.elastic.clients.json.jackson.Jackson3JsonpMapper")
                    .getConstructor()
                    .newInstance();
        } catch (ReflectiveOperationException | LinkageError e) {
            return null;
        }
    }

    private static Occ occ(JsonpMapper mapper) {
        assumeTrue(mapper != null, "this elasticsearch-java has no Jackson3JsonpMapper");
        return Occ.of(b -> b.client(new ElasticsearchClient(new RestClientTransport(cluster.restClient(), mapper)))
                .retryPolicy(OptimisticConcurrencyIT.CONTENDED));
    }

    @AfterAll
    static void cleanUp() throws IOException {
        cluster.client().indices().delete(d -> d.index("unmapped-*").ignoreUnavailable(true));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("mappers")
    void shouldKeepEveryFieldTheClassDoesNotMapThroughUpdateUpsertReplaceAndBulk(JsonpMapper mapper) throws Exception {
        Occ occ = occ(mapper);
        String index = index();
        store(index, "1", STORED);

        assertThat(occ.update(index, "1", Design.class, Design::vote).status()).isEqualTo(Outcome.Status.UPDATED);
        assertStored(index, "1", expected(1, 11));

        assertThat(occ.upsert(
                                index,
                                "1",
                                Design.class,
                                () -> new Design("new", 0, new Stats(0), List.of()),
                                Design::vote)
                        .status())
                .isEqualTo(Outcome.Status.UPDATED);
        assertStored(index, "1", expected(2, 12));

        Versioned<Design> seen = occ.get(index, "1", Design.class).orElseThrow();
        assertThat(occ.replace(seen, seen.value().vote()).status()).isEqualTo(Outcome.Status.UPDATED);
        assertStored(index, "1", expected(3, 13));

        List<String> ids = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            ids.add("b" + i);
            store(index, "b" + i, STORED);
        }
        BulkUpdate<Design> bulk = occ.bulk(Design.class);
        for (String id : ids) {
            bulk.update(index, id, Design::vote).update(index, id, Design::vote);
        }
        assertThat(bulk.execute().count(Outcome.Status.UPDATED)).isEqualTo(40);
        for (String id : ids) {
            assertStored(index, id, expected(2, 12));
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("mappers")
    void shouldKeepThemWith16WritersOnOneDocumentCombinedOrNot(JsonpMapper mapper) throws Exception {
        Occ combined = occ(mapper);
        Occ alone = Occ.of(b -> b.client(new ElasticsearchClient(new RestClientTransport(cluster.restClient(), mapper)))
                .retryPolicy(OptimisticConcurrencyIT.CONTENDED)
                .combineWrites(false));
        String index = index();
        store(index, "hot", STORED);
        OptimisticConcurrencyIT.runConcurrently(16, w -> {
            for (int v = 0; v < 25; v++) {
                (w % 2 == 0 ? combined : alone).update(index, "hot", Design.class, Design::vote);
            }
            return null;
        });
        assertStored(index, "hot", expected(400, 410));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("mappers")
    void shouldKeepTheFieldsOfArrayElementsTheFunctionKeepsOrRefuseBeforeWriting(JsonpMapper mapper) throws Exception {
        Occ occ = occ(mapper);
        String index = index();
        store(index, "1", STORED);

        occ.update(
                index,
                "1",
                Design.class,
                d -> d.comments(List.of(new Comment("first"), new Comment("second, edited"), new Comment("third"))));
        ObjectNode stored = source(index, "1");
        assertThat(stored.get("comments"))
                .as("edited in place and appended: the stored elements keep their fields")
                .isEqualTo(json("[{\"text\":\"first\",\"by\":\"ann\",\"likes\":3},"
                        + "{\"text\":\"second, edited\",\"by\":\"bob\",\"likes\":0},{\"text\":\"third\"}]"));

        occ.update(
                index,
                "1",
                Design.class,
                d -> d.comments(List.of(d.comments().get(1), d.comments().get(0))));
        assertThat(source(index, "1").get("comments"))
                .as("removed and reordered")
                .isEqualTo(json("[{\"text\":\"second, edited\",\"by\":\"bob\",\"likes\":0},"
                        + "{\"text\":\"first\",\"by\":\"ann\",\"likes\":3}]"));

        long seqNo = seqNo(index, "1");
        // Both stored elements gone and one changed one in their place: whose "by" and "likes" would it get?
        UnaryOperator<Design> ambiguous = d -> d.comments(List.of(new Comment("a merged comment")));
        assertThatThrownBy(() -> occ.update(index, "1", Design.class, ambiguous))
                .isInstanceOf(UnmappedFieldsException.class)
                .hasMessageContaining("[comments]")
                .hasMessageContaining("nothing was written");
        assertThat(seqNo(index, "1")).as("nothing written").isEqualTo(seqNo);
        BulkOutcome<Design> bulk =
                occ.bulk(Design.class).update(index, "1", ambiguous).tryExecute();
        assertThat(bulk.item(0).status()).isEqualTo(Outcome.Status.FAILED);
        assertThat(bulk.item(0).error()).contains("[comments]");
        assertThat(seqNo(index, "1")).as("nothing written by the bulk either").isEqualTo(seqNo);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("mappers")
    void shouldRemoveAFieldTheClassMapsWhenTheFunctionClearsIt(JsonpMapper mapper) throws Exception {
        Occ occ = occ(mapper);
        String index = index();
        store(index, "1", STORED);
        assertThat(occ.update(index, "1", Sparse.class, s -> new Sparse(null, s.votes() + 1))
                        .status())
                .isEqualTo(Outcome.Status.UPDATED);
        ObjectNode expected = expected(1, 10);
        expected.remove("name");
        assertStored(index, "1", expected);
        assertThat(occ.update(index, "1", Sparse.class, s -> s).status())
                .as("a function that changes nothing writes nothing, fields the class does not map or not")
                .isEqualTo(Outcome.Status.NOOP);
    }

    @Test
    void shouldRefuseWithAStrictMapperAndWriteNothing() throws Exception {
        Occ occ = occ(new JacksonJsonpMapper(new ObjectMapper()));
        String index = index();
        store(index, "1", STORED);
        long seqNo = seqNo(index, "1");
        assertThatThrownBy(() -> occ.update(index, "1", Design.class, Design::vote))
                .isInstanceOf(OccException.class)
                .hasMessageContaining("cannot map the source of [" + index + "][1] to " + Design.class.getName())
                .hasMessageContaining("Unrecognized field")
                .hasMessageContaining("@JsonIgnoreProperties(ignoreUnknown = true)");
        assertThat(seqNo(index, "1")).isEqualTo(seqNo);
    }

    // --- helpers -----------------------------------------------------------------------------------

    private static String index() throws IOException {
        String index = "unmapped-" + INDICES.incrementAndGet();
        cluster.client()
                .indices()
                .create(c -> c.index(index).settings(s -> s.numberOfShards("1").numberOfReplicas("0")));
        return index;
    }

    private static void store(String index, String id, String json) throws IOException {
        cluster.client().index(i -> i.index(index).id(id).document(json(json)));
    }

    /** The stored document after {@code votes} votes and with {@code views} views: every other field as stored. */
    private static ObjectNode expected(long votes, long views) {
        ObjectNode doc = (ObjectNode) json(STORED);
        doc.put("votes", votes);
        ((ObjectNode) doc.get("stats")).put("views", views);
        return doc;
    }

    private static void assertStored(String index, String id, ObjectNode expected) throws IOException {
        ObjectNode stored = source(index, id);
        assertThat(stored.equals(JsonTrees.BY_VALUE, expected))
                .as("[%s][%s] stored %s, expected %s", index, id, stored, expected)
                .isTrue();
    }

    private static ObjectNode source(String index, String id) throws IOException {
        return cluster.client()
                .get(g -> g.index(index).id(id), ObjectNode.class)
                .source();
    }

    private static long seqNo(String index, String id) throws IOException {
        GetResponse<ObjectNode> got = cluster.client().get(g -> g.index(index).id(id), ObjectNode.class);
        return got.seqNo();
    }

    private static com.fasterxml.jackson.databind.JsonNode json(String text) {
        try {
            return JsonTrees.parse(text);
        } catch (IOException e) {
            throw new IllegalArgumentException(text, e);
        }
    }
}
