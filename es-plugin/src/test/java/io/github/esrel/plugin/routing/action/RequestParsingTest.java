package io.github.esrel.plugin.routing.action;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.util.List;
import org.elasticsearch.action.ActionRequestValidationException;
import org.elasticsearch.xcontent.XContentParseException;
import org.elasticsearch.xcontent.XContentParser;
import org.elasticsearch.xcontent.XContentParserConfiguration;
import org.elasticsearch.xcontent.XContentType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class RequestParsingTest {

    private static final String[] INDEX = {"idx"};

    @Test
    void shouldParseABatchBody() throws IOException {
        RoutingCalcRequest request = batch(
                "{\"docs\": [{\"id\": \"1\", \"routing\": \"a\"}, {\"id\": \"2\"}, {\"id\": \"3\", \"routing\": null},"
                        + " {\"routing\": \"\", \"id\": \"\u00e9\u4e2d\ud83d\ude00\"}]}");
        assertThat(request.docs())
                .containsExactly(
                        new RoutingCalcDoc("1", "a"),
                        new RoutingCalcDoc("2", null),
                        new RoutingCalcDoc("3", null),
                        new RoutingCalcDoc("\u00e9\u4e2d\ud83d\ude00", null));
        assertThat(request.validate()).isNull();
        assertThat(request.indices()).containsExactly("idx");
    }

    @Test
    void shouldParseAHypotheticalBody() throws IOException {
        HypotheticalRoutingCalcRequest request = hypothetical(
                "{\"number_of_shards\": 5, \"routing_num_shards\": 640, \"routing_partition_size\": 1, \"index_version\": \"9.5.3\","
                        + " \"routing_function\": \"modulo\", \"docs\": [{\"id\": \"1\"}]}");
        assertThat(request)
                .isEqualTo(new HypotheticalRoutingCalcRequest(
                        5, 640, 1, "9.5.3", "modulo", List.of(new RoutingCalcDoc("1", null))));
        assertThat(request.validate()).isNull();
    }

    /** Bodies that are not valid JSON, or not the expected shape: all parse errors, never anything else. */
    @ParameterizedTest
    @ValueSource(
            strings = {
                "{",
                "{\"docs\": [",
                "{\"docs\": [{\"id\": \"1\"}]",
                "not json",
                "[]",
                "[{\"id\": \"1\"}]",
                "\"docs\"",
                "42",
                "{\"docs\": {\"id\": \"1\"}}",
                "{\"docs\": \"1\"}",
                "{\"docs\": [\"1\"]}",
                "{\"docs\": [[{\"id\": \"1\"}]]}",
                "{\"docs\": [null]}",
                "{\"docs\": [{\"id\": 1}]}",
                "{\"docs\": [{\"id\": null}]}",
                "{\"docs\": [{\"id\": [\"1\"]}]}",
                "{\"docs\": [{\"id\": {\"a\": 1}}]}",
                "{\"docs\": [{\"id\": true}]}",
                "{\"docs\": [{\"id\": \"1\", \"routing\": 5}]}",
                "{\"docs\": [{\"id\": \"1\", \"routing\": [\"a\"]}]}",
                "{\"docs\": [{\"id\": \"1\", \"_id\": \"1\"}]}",
                "{\"docs\": [{\"routing\": \"a\"}]}",
                "{\"docs\": [{}]}",
                "{\"docs\": [{\"id\": \"\"}]}",
                "{\"docs\": [], \"extra\": 1}",
                "{\"doc\": []}",
                "{\"docs\": [{\"id\": \"1\", \"id\": \"2\"}]}",
                "{\"docs\": [{\"id\": \"1\"}]} {}",
                "{\"docs\": [{\"id\": \"1\"}]}]"
            })
    void shouldRefuseMalformedBatchBodies(String body) {
        assertThatThrownBy(() -> batch(body))
                .isInstanceOf(IllegalArgumentException.class); // XContentParseException is one
    }

    @Test
    void shouldNameTheProblemInParseErrors() {
        assertThatThrownBy(() -> batch("{\"docs\": [{\"id\": 1}]}"))
                .isInstanceOf(XContentParseException.class)
                .hasMessageContaining("[docs[0].id] must be a string, got a number");
        assertThatThrownBy(() -> batch("{\"docs\": [{\"id\": \"1\"}, {\"routing\": \"a\"}]}"))
                .isInstanceOf(XContentParseException.class)
                .hasMessageContaining("[docs] entry 1 has no [id]; every doc needs one");
        assertThatThrownBy(() -> batch("{\"docs\": [{\"id\": \"1\", \"_routing\": \"a\"}]}"))
                .isInstanceOf(XContentParseException.class)
                .hasMessageContaining(
                        "[docs] entry 0 has unknown field [_routing]; a doc has [id] and optionally [routing]");
        assertThatThrownBy(() -> batch("{\"docs\": {}}"))
                .isInstanceOf(XContentParseException.class)
                .hasMessageContaining("[docs] must be an array of objects");
        assertThatThrownBy(() -> batch("[]"))
                .isInstanceOf(XContentParseException.class)
                .hasMessageContaining("request body must be a JSON object like {\"docs\": [");
        assertThatThrownBy(() -> batch("{\"doc\": []}"))
                .isInstanceOf(XContentParseException.class)
                .hasMessageContaining("unknown field [doc], expected one of [docs]");
        assertThatThrownBy(() -> batch("{}"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("request body must contain [docs]");
    }

    @Test
    void shouldRefuseABatchOverTheLimitWhileReadingIt() {
        assertThatThrownBy(() -> RoutingCalcRequest.fromXContent(
                        INDEX, parser("{\"docs\": [{\"id\": \"1\"}, {\"id\": \"2\"}, {\"id\": \"3\"}, garbage"), 2))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage(
                        "docs must hold at most 2 entries (node setting [esrel.routing.max_batch_docs]); split the batch or raise the setting");
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "{\"number_of_shards\": 0, \"docs\": [{\"id\": \"1\"}]}",
                "{\"number_of_shards\": -5, \"docs\": [{\"id\": \"1\"}]}",
                "{\"number_of_shards\": 1025, \"docs\": [{\"id\": \"1\"}]}",
                "{\"number_of_shards\": 99999999999999999999999999, \"docs\": [{\"id\": \"1\"}]}",
                "{\"number_of_shards\": 2147483648, \"docs\": [{\"id\": \"1\"}]}",
                "{\"number_of_shards\": 1.5, \"docs\": [{\"id\": \"1\"}]}",
                "{\"number_of_shards\": 1e3, \"docs\": [{\"id\": \"1\"}]}",
                "{\"number_of_shards\": \"5\", \"docs\": [{\"id\": \"1\"}]}",
                "{\"number_of_shards\": [5], \"docs\": [{\"id\": \"1\"}]}",
                "{\"number_of_shards\": null, \"docs\": [{\"id\": \"1\"}]}",
                "{\"number_of_shards\": 5, \"routing_num_shards\": 0, \"docs\": [{\"id\": \"1\"}]}",
                "{\"number_of_shards\": 5, \"routing_partition_size\": 0, \"docs\": [{\"id\": \"1\"}]}",
                "{\"number_of_shards\": 5, \"index_version\": 9, \"docs\": [{\"id\": \"1\"}]}",
                "{\"number_of_shards\": 5, \"routing_function\": null, \"docs\": [{\"id\": \"1\"}]}",
                "{\"number_of_shards\": 5, \"index\": \"x\", \"docs\": [{\"id\": \"1\"}]}",
                "{\"number_of_shards\": 5, \"docs\": [{\"id\": 1}]}"
            })
    void shouldRefuseMalformedHypotheticalBodies(String body) {
        assertThatThrownBy(() -> hypothetical(body)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void shouldNameTheRangeInHypotheticalErrors() {
        assertThatThrownBy(() -> hypothetical("{\"number_of_shards\": 0}"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("number_of_shards must be between 1 and 1024, got 0");
        assertThatThrownBy(() -> hypothetical("{\"number_of_shards\": 99999999999999999999}"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("number_of_shards must be between 1 and 1024, got 99999999999999999999");
        assertThatThrownBy(() -> hypothetical("{\"number_of_shards\": 2.5}"))
                .isInstanceOf(XContentParseException.class)
                .hasMessageContaining("[number_of_shards] must be an integer, got [2.5]");
        assertThatThrownBy(() -> hypothetical("{\"shards\": 2}"))
                .isInstanceOf(XContentParseException.class)
                .hasMessageContaining("unknown field [shards], expected one of [number_of_shards, routing_num_shards");
    }

    @Test
    void shouldValidateHypotheticalParametersWithTheFix() {
        assertThat(errors(new HypotheticalRoutingCalcRequest(
                        null, null, null, null, null, List.of(new RoutingCalcDoc("1", null)))))
                .containsExactly("number_of_shards is required, e.g. {\"number_of_shards\": 5, \"docs\": [...]}");
        assertThat(errors(new HypotheticalRoutingCalcRequest(
                        0, null, null, null, null, List.of(new RoutingCalcDoc("1", null)))))
                .containsExactly("number_of_shards must be between 1 and 1024, got 0");
        assertThat(errors(new HypotheticalRoutingCalcRequest(
                        5, 7, null, null, null, List.of(new RoutingCalcDoc("1", null)))))
                .containsExactly(
                        "routing_num_shards must be a multiple of number_of_shards (5), got 7; omit it for the default of a new index");
        assertThat(errors(new HypotheticalRoutingCalcRequest(
                        5, 3, null, null, null, List.of(new RoutingCalcDoc("1", null)))))
                .containsExactly("routing_num_shards must be at least number_of_shards (5), got 3");
        assertThat(errors(new HypotheticalRoutingCalcRequest(
                        5, null, 0, null, null, List.of(new RoutingCalcDoc("1", null)))))
                .containsExactly("routing_partition_size must be 1 or more, got 0");
        assertThat(errors(new HypotheticalRoutingCalcRequest(
                        5, null, null, "9.x", null, List.of(new RoutingCalcDoc("1", null)))))
                .containsExactly(
                        "index_version must be an Elasticsearch release version like [8.19.0] or [9.5.3], got [9.x]");
        assertThat(errors(new HypotheticalRoutingCalcRequest(
                        5, null, null, "6.8.23", null, List.of(new RoutingCalcDoc("1", null)))))
                .containsExactly(
                        "index_version must be 7.0.0 or later (older indices cannot be opened by Elasticsearch 9), got [6.8.23]");
        assertThat(errors(new HypotheticalRoutingCalcRequest(
                        5, null, null, null, "hash", List.of(new RoutingCalcDoc("1", null)))))
                .containsExactly("routing_function must be [legacy] or [modulo], got [hash]");
        assertThat(errors(new HypotheticalRoutingCalcRequest(
                        5, null, null, "8.19.0", "modulo", List.of(new RoutingCalcDoc("1", null)))))
                .containsExactly(
                        "routing_function [modulo] contradicts index_version [8.19.0]: indices created before 9.4.0 use [legacy], later ones [modulo]; give only one of them");
        assertThat(errors(new HypotheticalRoutingCalcRequest(5, null, null, null, null, List.of())))
                .containsExactly("docs must not be empty; give at least one {\"id\": ...}");
        assertThat(new HypotheticalRoutingCalcRequest(
                                5, null, null, "9.3.2", "legacy", List.of(new RoutingCalcDoc("1", null)))
                        .validate())
                .isNull();
    }

    @Test
    void shouldValidateIndexRequests() {
        assertThat(errors(new RoutingCalcRequest(INDEX, null, null, List.of())))
                .containsExactly("docs must not be empty; give at least one {\"id\": ...}");
        assertThat(errors(new RoutingCalcRequest(INDEX, "1", null, List.of(new RoutingCalcDoc("1", null)))))
                .containsExactly(
                        "the id and routing parameters cannot be combined with a body; put them into [docs] entries");
        assertThat(errors(RoutingCalcRequest.doc("idx", "", null))).containsExactly("id must not be empty");
        assertThat(errors(RoutingCalcRequest.doc("idx", "x".repeat(513), null)))
                .singleElement()
                .asString()
                .endsWith("is too long, must be no longer than 512 bytes but was: 513");
        assertThat(errors(RoutingCalcRequest.doc("idx", "\u00e9".repeat(300), null)))
                .singleElement()
                .asString()
                .endsWith("but was: 600");
        assertThat(errors(new RoutingCalcRequest(new String[0], "1", null, null)))
                .containsExactly("index is required, e.g. GET /my-index/_routing_calc?id=1");
        assertThat(RoutingCalcRequest.doc("idx", "x".repeat(512), "").validate())
                .isNull();
        assertThat(RoutingCalcRequest.doc("idx", "1", "").routing())
                .as("empty routing means none, as in Elasticsearch")
                .isNull();
    }

    private static List<String> errors(org.elasticsearch.action.ActionRequest request) {
        ActionRequestValidationException e = request.validate();
        assertThat(e).isNotNull();
        return e.validationErrors();
    }

    private static RoutingCalcRequest batch(String json) throws IOException {
        try (XContentParser parser = parser(json)) {
            return RoutingCalcRequest.fromXContent(INDEX, parser, 1000);
        }
    }

    private static HypotheticalRoutingCalcRequest hypothetical(String json) throws IOException {
        try (XContentParser parser = parser(json)) {
            return HypotheticalRoutingCalcRequest.fromXContent(parser, 1000);
        }
    }

    private static XContentParser parser(String json) throws IOException {
        return XContentType.JSON.xContent().createParser(XContentParserConfiguration.EMPTY, json);
    }
}
