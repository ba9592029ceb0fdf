package io.github.esrel.denorm;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;

class BulksInFlightTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    private static JsonNode nodes(String json) throws Exception {
        return JSON.readTree(json.replace('\'', '"'));
    }

    @Test
    void shouldTakeTheSmallestWritePoolAmongDataNodes() throws Exception {
        JsonNode answer = nodes("{'nodes': {"
                + "'a': {'roles': ['master', 'data'], 'thread_pool': {'write': {'max': 4}}},"
                + "'b': {'roles': ['data_hot'], 'thread_pool': {'write': {'max': 3}}},"
                + "'c': {'roles': ['master'], 'thread_pool': {'write': {'max': 1}}}}}");
        assertThat(BulksInFlight.fromNodesInfo(answer)).isEqualTo(3); // c holds no shards
    }

    @Test
    void shouldKeepAtLeastTwoAndAtMostFourInFlight() throws Exception {
        assertThat(BulksInFlight.fromNodesInfo(
                        nodes("{'nodes': {'a': {'roles': ['data'], 'thread_pool': {'write': {'max': 1}}}}}")))
                .isEqualTo(2);
        assertThat(BulksInFlight.fromNodesInfo(
                        nodes("{'nodes': {'a': {'roles': ['data'], 'thread_pool': {'write': {'max': 32}}}}}")))
                .isEqualTo(BulksInFlight.MAX);
    }

    @Test
    void shouldFallBackWhenTheAnswerNamesNoPool() throws Exception {
        assertThat(BulksInFlight.fromNodesInfo(nodes("{}"))).isEqualTo(BulksInFlight.FALLBACK);
        assertThat(BulksInFlight.fromNodesInfo(nodes("{'nodes': {'a': {'roles': ['data']}}}")))
                .isEqualTo(BulksInFlight.FALLBACK);
    }
}
