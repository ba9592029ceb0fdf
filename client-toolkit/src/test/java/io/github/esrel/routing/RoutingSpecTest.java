package io.github.esrel.routing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import jakarta.json.Json;
import jakarta.json.JsonObject;
import java.io.StringReader;
import java.util.List;
import org.junit.jupiter.api.Test;

class RoutingSpecTest {

    @Test
    void shouldDefaultRoutingNumShardsLikeElasticsearch() {
        assertThat(RoutingSpec.defaultRoutingNumShards(1)).isEqualTo(1024);
        assertThat(RoutingSpec.defaultRoutingNumShards(3)).isEqualTo(768);
        assertThat(RoutingSpec.defaultRoutingNumShards(5)).isEqualTo(640);
        assertThat(RoutingSpec.defaultRoutingNumShards(7)).isEqualTo(896);
        assertThat(RoutingSpec.defaultRoutingNumShards(1024)).isEqualTo(2048);
        assertThat(RoutingSpec.of(b -> b.numberOfShards(5)).routingFactor()).isEqualTo(128);
    }

    @Test
    void shouldRejectImpossibleParametersNamingTheValue() {
        assertThatThrownBy(() -> RoutingSpec.of(b -> b.numberOfShards(0)))
                .hasMessage("number_of_shards must be between 1 and 1024, got 0");
        assertThatThrownBy(() -> RoutingSpec.of(b -> b.numberOfShards(5).routingNumShards(12)))
                .hasMessage("routing_num_shards [12] must be a multiple of number_of_shards [5]");
        assertThatThrownBy(() -> RoutingSpec.of(
                        b -> b.numberOfShards(2).routingNumShards(2).routingPartitionSize(2)))
                .hasMessageContaining("routing_partition_size [2] must be less than routing_num_shards [2]");
        assertThatThrownBy(() -> RoutingSpec.builder().build()).hasMessage("number_of_shards is required");
    }

    @Test
    void shouldPickTheFunctionFromTheCreationVersion() {
        assertThat(RoutingFunction.forRelease("8.19.21")).isEqualTo(RoutingFunction.LEGACY);
        assertThat(RoutingFunction.forRelease("9.3.2")).isEqualTo(RoutingFunction.LEGACY);
        assertThat(RoutingFunction.forRelease("9.4.0")).isEqualTo(RoutingFunction.MODULO);
        assertThat(RoutingFunction.forRelease("9.5.3-SNAPSHOT")).isEqualTo(RoutingFunction.MODULO);
        assertThat(RoutingFunction.forRelease("10.0")).isEqualTo(RoutingFunction.MODULO);
        assertThat(RoutingFunction.forIndexVersionId(8_525_000)).isEqualTo(RoutingFunction.LEGACY);
        assertThat(RoutingFunction.forIndexVersionId(9_064_000)).isEqualTo(RoutingFunction.MODULO);
        assertThatThrownBy(() -> RoutingFunction.forRelease("nine")).hasMessageContaining("got [nine]");
        assertThatThrownBy(() -> RoutingFunction.fromJsonName("mod")).hasMessageContaining("got [mod]");
    }

    @Test
    void shouldRefuseMissingRoutingOnPartitionedOrRoutingRequiredIndices() {
        RoutingCalculator partitioned = RoutingCalculator.of(
                RoutingSpec.of(b -> b.index("p").numberOfShards(6).routingPartitionSize(3)));
        assertThatThrownBy(() -> partitioned.shard("1", null)).hasMessageContaining("index [p] is partitioned");
        RoutingCalculator required = RoutingCalculator.of(
                RoutingSpec.of(b -> b.index("r").numberOfShards(2).routingRequired(true)));
        assertThatThrownBy(() -> required.shard("1", null)).hasMessageContaining("requires routing");
        assertThat(required.shard("1", "a")).isBetween(0, 1);
    }

    @Test
    void shouldFindRoutingValuesThatLandOnTheChosenShard() {
        for (RoutingFunction f : RoutingFunction.values()) {
            RoutingCalculator calc =
                    RoutingCalculator.of(RoutingSpec.of(b -> b.numberOfShards(7).function(f)));
            for (int shard = 0; shard < 7; shard++) {
                List<String> values = calc.routingValuesForShard(shard, 5, "tenant-");
                assertThat(values).hasSize(5).allMatch(v -> v.startsWith("tenant-"));
                for (String v : values) {
                    assertThat(calc.shard("any-id", v)).isEqualTo(shard);
                }
            }
        }
    }

    @Test
    void shouldMeasureSkewAsMaxOverMean() {
        Distribution even = Distribution.of(10, 10, 10, 10);
        assertThat(even.skew()).isEqualTo(1.0);
        Distribution allOnOne = Distribution.of(0, 40, 0, 0);
        assertThat(allOnOne.skew()).isEqualTo(4.0);
        assertThat(allOnOne.emptyShards()).isEqualTo(3);
        assertThat(Distribution.of(0, 0).skew()).isZero();
    }

    @Test
    void shouldReadParametersFromClusterStateMetadata() {
        JsonObject meta = json("{\"routing_num_shards\": 768, \"settings\": {\"index\": {\"number_of_shards\": \"12\","
                + "\"routing_partition_size\": \"3\", \"version\": {\"created\": \"9064000\"}}},"
                + "\"mappings\": {\"_doc\": {\"_routing\": {\"required\": true}}}}");
        RoutingSpec spec = RoutingClient.specFromMetadata("logs", meta);
        assertThat(spec)
                .isEqualTo(RoutingSpec.of(b -> b.index("logs")
                        .numberOfShards(12)
                        .routingNumShards(768)
                        .routingPartitionSize(3)
                        .function(RoutingFunction.MODULO)
                        .routingRequired(true)));
    }

    @Test
    void shouldRefuseIndicesThatRouteOnSourceFields() {
        JsonObject meta = json("{\"settings\": {\"index\": {\"number_of_shards\": \"1\", \"mode\": \"time_series\","
                + "\"routing_path\": [\"host\"], \"version\": {\"created\": \"9064000\"}}}}");
        assertThatThrownBy(() -> RoutingClient.specFromMetadata("metrics", meta))
                .isInstanceOf(RoutingException.class)
                .hasMessageContaining("routes documents on their source fields");
    }

    private static JsonObject json(String s) {
        return Json.createReader(new StringReader(s)).readObject();
    }
}
