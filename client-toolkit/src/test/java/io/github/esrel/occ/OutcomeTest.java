package io.github.esrel.occ;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import co.elastic.clients.json.jackson.JacksonJsonpMapper;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.github.esrel.doc.DocMeta;
import io.github.esrel.retry.StopReason;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

class OutcomeTest {

    private static final ObjectMapper MAPPER = new ObjectMapper();

    record Shirt(String name, long votes) {}

    @Test
    void shouldTurnGivingUpIntoAConflictExceptionOnlyWhenAsked() {
        Outcome<String> gaveUp = Outcome.<String>builder("designs", "1", "t", Outcome.Status.CONFLICT)
                .value("v")
                .attempts(10, 10)
                .stopReason(StopReason.MAX_ATTEMPTS)
                .build();
        assertThat(gaveUp.gaveUp()).isTrue();
        assertThat(gaveUp.written()).isFalse();
        assertThatThrownBy(gaveUp::orThrow)
                .isInstanceOfSatisfying(OccConflictException.class, e -> {
                    assertThat(e.status()).isEqualTo(409);
                    assertThat(e.outcome()).isSameAs(gaveUp);
                })
                .hasMessage(
                        "[designs][1] routing [t] CONFLICT: gave up after 10 attempt(s) and 10 version conflict(s) (MAX_ATTEMPTS)");
        assertThatThrownBy(gaveUp::versioned).isInstanceOf(IllegalStateException.class);

        Outcome<String> updated = Outcome.<String>builder("designs", "1", null, Outcome.Status.UPDATED)
                .value("v")
                .version(7, 1, 8)
                .attempts(2, 1)
                .build();
        assertThat(updated.orThrow()).isSameAs(updated);
        assertThat(updated.versioned()).isEqualTo(new Versioned<>("designs", "1", null, "v", 7, 1, 8));
        assertThat(updated.describe())
                .isEqualTo("[designs][1] UPDATED after 2 attempt(s), seq_no 7, primary_term 1, version 8");

        Outcome<String> failed = Outcome.<String>builder("designs", "1", null, Outcome.Status.FAILED)
                .stopReason(StopReason.NOT_RETRYABLE)
                .error("[mapper_parsing_exception] bad")
                .build();
        assertThatThrownBy(failed::orThrow)
                .isExactlyInstanceOf(OccException.class)
                .hasMessageContaining("mapper_parsing_exception");
    }

    @Test
    void shouldCompareSourcesByJsonValueNotByRepresentation() {
        Json json = new Json(new JacksonJsonpMapper(MAPPER), null);
        ObjectNode stored = MAPPER.valueToTree(Map.of("name", "es", "votes", 5));
        assertThat(SourceMerge.sameSource(stored, json.toTree(new Shirt("es", 5), "i", "1")))
                .as("int 5 vs long 5")
                .isTrue();
        assertThat(SourceMerge.sameSource(stored, json.toTree(Map.of("name", "es", "votes", 5.0), "i", "1")))
                .isTrue();
        assertThat(SourceMerge.sameSource(stored, json.toTree(new Shirt("es", 6), "i", "1")))
                .isFalse();
        assertThat(SourceMerge.sameSource(stored, json.toTree(Map.of("name", "es"), "i", "1")))
                .isFalse();
        assertThatThrownBy(() -> json.toTree("just a string", "i", "1"))
                .hasMessageContaining("the new value of [i][1]")
                .hasMessageContaining("must serialize to a JSON object, got STRING");
        assertThatThrownBy(() -> json.toValue(
                        MAPPER.valueToTree(Map.of("votes", "many")), Shirt.class, DocMeta.of("i", "1", null)))
                .isInstanceOf(OccException.class)
                .hasMessageStartingWith("cannot map the source of [i][1] to ");
    }

    @Test
    void shouldParseElasticsearchTimeValues() {
        assertThat(ExternalVersions.parseTime("60s")).isEqualTo(Duration.ofSeconds(60));
        assertThat(ExternalVersions.parseTime("1m")).isEqualTo(Duration.ofMinutes(1));
        assertThat(ExternalVersions.parseTime("500ms")).isEqualTo(Duration.ofMillis(500));
        assertThat(ExternalVersions.parseTime("250")).isEqualTo(Duration.ofMillis(250));
        assertThat(ExternalVersions.parseTime("2h")).isEqualTo(Duration.ofHours(2));
        assertThatThrownBy(() -> ExternalVersions.parseTime("soon")).hasMessage("not a time value: [soon]");
    }
}
