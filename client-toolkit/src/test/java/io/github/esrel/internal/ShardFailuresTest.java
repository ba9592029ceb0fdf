package io.github.esrel.internal;

import static org.assertj.core.api.Assertions.assertThat;

import co.elastic.clients.elasticsearch._types.ShardStatistics;
import co.elastic.clients.json.JsonpMapper;
import co.elastic.clients.json.jackson.JacksonJsonpMapper;
import java.io.StringReader;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class ShardFailuresTest {

    /** A failure of one shard: index, shard, reason type. */
    private record Failure(String index, int shard, String type) {}

    /** From JSON, as an answer carries it: the clients' builders differ (shard is an int in 8.15, an Integer later). */
    private static ShardStatistics shards(int total, List<Failure> failures) {
        List<String> items = new ArrayList<>();
        for (Failure f : failures) {
            items.add("{\"shard\":" + f.shard() + ",\"index\":\"" + f.index()
                    + "\",\"node\":\"n1\",\"reason\":{\"type\":\"" + f.type() + "\",\"reason\":\"" + f.type() + " on "
                    + f.index() + "\"}}");
        }
        String json = "{\"total\":" + total + ",\"successful\":" + (total - failures.size())
                + ",\"skipped\":0,\"failed\":" + failures.size() + ",\"failures\":[" + String.join(",", items) + "]}";
        JsonpMapper mapper = new JacksonJsonpMapper();
        return ShardStatistics._DESERIALIZER.deserialize(
                mapper.jsonProvider().createParser(new StringReader(json)), mapper);
    }

    @Test
    void shouldSayNothingWhenEveryShardAnswered() {
        assertThat(ShardFailures.of(shards(3, List.of()))).isNull();
        assertThat(ShardFailures.of(null)).isNull();
    }

    @Test
    void shouldNameTheShardsThatFailedAndWhy() {
        String said = ShardFailures.of(shards(
                4,
                List.of(
                        new Failure("posts", 1, "node_disconnected_exception"),
                        new Failure("archive", 2, "no_shard_available_action_exception"))));
        assertThat(said)
                .startsWith("2 of 4 shards failed: [posts] on node n1: [node_disconnected_exception]")
                .contains("; [archive] on node n1: [no_shard_available_action_exception]");
    }

    @Test
    void shouldCapTheFailuresItLists() {
        List<Failure> five = List.of(
                new Failure("a0", 0, "x"),
                new Failure("a1", 1, "x"),
                new Failure("a2", 2, "x"),
                new Failure("a3", 3, "x"),
                new Failure("a4", 4, "x"));
        assertThat(ShardFailures.of(shards(6, five)))
                .contains("[a2]")
                .endsWith("; and 2 more")
                .doesNotContain("[a3]");
    }

    @Test
    void shouldBlameTheRequestOnlyWhenEveryShardFailedOnIt() {
        assertThat(ShardFailures.status(shards(2, List.of(new Failure("numbers", 0, "query_shard_exception")))))
                .isEqualTo(400);
        assertThat(ShardFailures.status(shards(
                        3,
                        List.of(
                                new Failure("numbers", 0, "query_shard_exception"),
                                new Failure("posts", 1, "node_not_connected_exception")))))
                .isEqualTo(503);
        assertThat(ShardFailures.status(shards(2, List.of()))).isEqualTo(503);
    }
}
