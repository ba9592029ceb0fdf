package io.github.esrel.spring.data;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import co.elastic.clients.elasticsearch.ElasticsearchClient;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.github.esrel.doc.DocMeta;
import java.time.Instant;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.data.elasticsearch.client.elc.ElasticsearchTemplate;
import org.springframework.data.elasticsearch.core.query.SeqNoPrimaryTerm;

/**
 * What the converter makes of entities and of other types, without a node: Spring Data's template on a client that
 * connects nowhere (the converter sends no request).
 */
class SpringDataDocumentConverterTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Instant CREATED = Instant.parse("2026-12-04T10:15:30.123Z");

    static ElasticsearchClient client;
    static ElasticsearchTemplate template;
    static SpringDataDocumentConverter converter;

    @BeforeAll
    static void setUp() {
        client = Unconnected.client();
        template = new ElasticsearchTemplate(client);
        converter = SpringDataDocumentConverter.of(template, client);
    }

    @AfterAll
    static void tearDown() throws Exception {
        client._transport().close();
    }

    record Plain(String name, int votes) {}

    @Test
    void shouldWriteAnEntityAsSpringDataMapsIt() throws Exception {
        ObjectNode written = converter.write(new Design("d-1", "Blue", 3, CREATED));
        assertThat(written)
                .isEqualTo(JSON.readTree("{\"_class\":\"" + Design.class.getName() + "\",\"id\":\"d-1\","
                        + "\"design_name\":\"Blue\",\"vote_count\":3,\"created\":\"" + CREATED.toEpochMilli()
                        + "\"}"));
        // The same JSON as Spring Data's own document for it.
        assertThat(written)
                .isEqualTo(JSON.readTree(template.getElasticsearchConverter()
                        .mapObject(new Design("d-1", "Blue", 3, CREATED))
                        .toJson()));
    }

    @Test
    void shouldNeverWriteTheSeqNoPrimaryTermProperty() {
        Design d = new Design("d-1", "Blue", 3, CREATED);
        d.setSeqNoPrimaryTerm(new SeqNoPrimaryTerm(7, 1));
        assertThat(converter.write(d).has("seqNoPrimaryTerm")).isFalse();
    }

    @Test
    void shouldReadAnEntityWithTheIdAndVersionsBesideTheSource() throws Exception {
        ObjectNode source = (ObjectNode) JSON.readTree("{\"design_name\":\"Blue\",\"vote_count\":3,\"created\":\""
                + CREATED.toEpochMilli() + "\",\"owner\":{\"team\":\"paint\"}}");
        Design d = converter.read(source, Design.class, new DocMeta("designs", "d-9", null, 12, 2, 5));
        assertThat(d.getId()).as("from the document's id").isEqualTo("d-9");
        assertThat(d.getName()).isEqualTo("Blue");
        assertThat(d.getVotes()).isEqualTo(3);
        assertThat(d.getCreated()).isEqualTo(CREATED);
        assertThat(d.getSeqNoPrimaryTerm()).isEqualTo(new SeqNoPrimaryTerm(12, 2));
        assertThat(source.has("owner")).as("the source is left as it was").isTrue();

        Design hit = converter.read(source, Design.class, DocMeta.of("designs", "d-9", null));
        assertThat(hit.getSeqNoPrimaryTerm()).as("unknown versions: none").isNull();
    }

    @Test
    void shouldFillTheVersionOfWhatItHandsBack() {
        Note n = converter.withMeta(new Note("n-1", "acme", "text"), new DocMeta("notes", "n-1", "acme", 4, 1, 9));
        assertThat(n.getVersion()).isEqualTo(9L);
        Design d =
                converter.withMeta(new Design("d-1", "Blue", 3, CREATED), new DocMeta("designs", "d-1", null, 4, 1, 9));
        assertThat(d.getSeqNoPrimaryTerm()).isEqualTo(new SeqNoPrimaryTerm(4, 1));
        Plain p = new Plain("x", 1);
        assertThat(converter.withMeta(p, new DocMeta("plain", "p", null, 4, 1, 9)))
                .isSameAs(p);
    }

    @Test
    void shouldReadImmutableRecordEntities() throws Exception {
        ObjectNode source = (ObjectNode) JSON.readTree("{\"_class\":\"" + Author.class.getName()
                + "\",\"id\":\"a-1\",\"full_name\":\"Ada\",\"country\":\"NO\"}");
        assertThat(converter.read(source, Author.class, DocMeta.of("authors", "a-1", null)))
                .isEqualTo(new Author("a-1", "Ada", "NO"));
        assertThat(converter.write(new Author("a-1", "Ada", "NO"))).isEqualTo(source);
    }

    @Test
    void shouldRouteAnEntityByItsRoutingAnnotation() {
        assertThat(converter.routing(new Note("n-1", "acme", "text"))).isEqualTo("acme");
        assertThat(converter.routing(new Design("d-1", "Blue", 3, CREATED))).isNull();
        assertThat(converter.routing(new Plain("x", 1))).isNull();
    }

    @Test
    void shouldMapTypesThatAreNoEntitiesWithTheClientsMapper() throws Exception {
        assertThat(converter.isEntity(Plain.class)).isFalse();
        assertThat(converter.isEntity(ObjectNode.class)).isFalse();
        assertThat(converter.write(new Plain("x", 2))).isEqualTo(JSON.readTree("{\"name\":\"x\",\"votes\":2}"));
        ObjectNode source = (ObjectNode) JSON.readTree("{\"name\":\"y\",\"votes\":4}");
        assertThat(converter.read(source, Plain.class, DocMeta.of("plain", "p", null)))
                .isEqualTo(new Plain("y", 4));
        assertThat(converter.read(source, ObjectNode.class, DocMeta.of("plain", "p", null)))
                .isEqualTo(source);
    }

    @Test
    void shouldNameTheTypeItCannotRead() throws Exception {
        ObjectNode source = (ObjectNode) JSON.readTree("{\"vote_count\":\"many\"}");
        assertThatThrownBy(() -> converter.read(source, Design.class, DocMeta.of("designs", "d-1", null)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(Design.class.getName());
    }
}
