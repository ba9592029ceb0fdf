package io.github.esrel.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import co.elastic.clients.json.SimpleJsonpMapper;
import co.elastic.clients.json.jackson.JacksonJsonpMapper;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.github.esrel.ApplicationMappers;
import io.github.esrel.ApplicationMappers.Money;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The application's mapper settings hold for its documents: property naming and custom modules, with a Jackson 2
 * mapper (mapped tree to value) and with any other mapper (mapped through the JSON text).
 */
class DocumentMapperTest {

    record Shirt(String designName, long voteCount, Money price) {}

    static Stream<DocumentMapper> applicationMappers() {
        JacksonJsonpMapper jackson = new JacksonJsonpMapper(ApplicationMappers.snakeCase());
        return Stream.of(DocumentMapper.of(jackson), DocumentMapper.of(new ApplicationMappers.Foreign(jackson)));
    }

    @ParameterizedTest
    @MethodSource("applicationMappers")
    void shouldWriteAndReadWithTheApplicationsNamingAndModules(DocumentMapper mapper) {
        Shirt shirt = new Shirt("tux", 3, Money.of("12.50", "EUR"));
        JsonNode tree = mapper.toTree(shirt);
        assertThat(tree.toString()).isEqualTo("{\"design_name\":\"tux\",\"vote_count\":\"3\",\"price\":\"12.50 EUR\"}");
        assertThat(mapper.toValue(tree, Shirt.class)).isEqualTo(shirt);
    }

    @ParameterizedTest
    @MethodSource("applicationMappers")
    void shouldCopyTreesWithoutTheMapper(DocumentMapper mapper) throws Exception {
        ObjectNode tree = (ObjectNode) new ObjectMapper().readTree("{\"camelCase\":1}");
        ObjectNode read = mapper.toValue(tree, ObjectNode.class);
        assertThat(read).isEqualTo(tree).isNotSameAs(tree);
        assertThat(mapper.toTree(tree)).isEqualTo(tree).isNotSameAs(tree);
    }

    @Test
    void shouldNameTheMapperThatCannotMapAClass() throws Exception {
        DocumentMapper simple = DocumentMapper.of(new SimpleJsonpMapper());
        JsonNode tree = new ObjectMapper().readTree("{\"designName\":\"tux\",\"voteCount\":3}");
        assertThatThrownBy(() -> simple.toValue(tree, Shirt.class))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith(
                        "cannot map JSON to " + Shirt.class.getName() + " with the client's SimpleJsonpMapper: ");
        assertThat(simple.toValue(tree, JsonNode.class)).isEqualTo(tree);
    }

    @Test
    void shouldReportWhatJacksonRefusesWithItsOwnMessage() throws Exception {
        DocumentMapper jackson = DocumentMapper.of(new JacksonJsonpMapper());
        JsonNode tree = new ObjectMapper().readTree("{\"designName\":\"tux\",\"voteCount\":\"many\"}");
        assertThatThrownBy(() -> jackson.toValue(tree, Shirt.class))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("many");
    }
}
