package io.github.esrel.internal;

import static org.assertj.core.api.Assertions.assertThat;

import co.elastic.clients.elasticsearch._types.ShardFailure;
import co.elastic.clients.elasticsearch._types.ShardStatistics;
import java.util.List;
import org.junit.jupiter.api.Test;

class ShardFailuresTest {

    private static ShardFailure failure(String index, int shard, String type) {
        return ShardFailure.of(f ->
                f.index(index).shard(shard).node("n1").reason(r -> r.type(type).reason(type + " on " + index)));
    }

    private static ShardStatistics shards(int total, List<ShardFailure> failures) {
        return ShardStatistics.of(s -> s.total(total)
                .successful(total - failures.size())
                .failed(failures.size())
                .skipped(0)
                .failures(failures));
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
                        failure("posts", 1, "node_disconnected_exception"),
                        failure("posts", 2, "no_shard_available_action_exception"))));
        assertThat(said)
                .startsWith("2 of 4 shards failed: [posts][1] on node n1: [node_disconnected_exception]")
                .contains("; [posts][2] on node n1: [no_shard_available_action_exception]");
    }

    @Test
    void shouldCapTheFailuresItLists() {
        List<ShardFailure> five = List.of(
                failure("a", 0, "x"),
                failure("a", 1, "x"),
                failure("a", 2, "x"),
                failure("a", 3, "x"),
                failure("a", 4, "x"));
        assertThat(ShardFailures.of(shards(6, five))).endsWith("; and 2 more").doesNotContain("[a][3]");
    }

    @Test
    void shouldBlameTheRequestOnlyWhenEveryShardFailedOnIt() {
        assertThat(ShardFailures.status(shards(2, List.of(failure("numbers", 0, "query_shard_exception")))))
                .isEqualTo(400);
        assertThat(ShardFailures.status(shards(
                        3,
                        List.of(
                                failure("numbers", 0, "query_shard_exception"),
                                failure("posts", 1, "node_not_connected_exception")))))
                .isEqualTo(503);
        assertThat(ShardFailures.status(shards(2, List.of()))).isEqualTo(503);
    }
}
