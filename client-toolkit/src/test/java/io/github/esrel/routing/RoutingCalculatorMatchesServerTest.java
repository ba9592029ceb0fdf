package io.github.esrel.routing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The pure-Java calculator against the server's own {@code IndexRouting} and {@code Murmur3HashFunction}
 * (the server jar of the version under test), on 100,000 random ids per configuration.
 */
class RoutingCalculatorMatchesServerTest {

    private static final int IDS = 100_000;
    private static final List<String> IDS_SAMPLE = RandomStrings.unicode(IDS, 42);
    private static final List<String> ROUTINGS = RandomStrings.unicode(2_000, 7);

    @Test
    void murmur3MatchesServerOnRandomUnicodeStrings() {
        for (String s : IDS_SAMPLE) {
            if (Murmur3.hash(s) != ServerRoutingReference.serverHash(s)) {
                fail("hash differs for " + codePoints(s));
            }
        }
    }

    @Test
    void murmur3MatchesServerOnLoneSurrogatesAndEdgeLengths() {
        List<String> edge = List.of(
                "a",
                "ab",
                "abc",
                "abcd",
                "abcde",
                "\uD800",
                "x\uDC00",
                "\uDBFF\uDFFF",
                "\u0000",
                "\uFFFF\uFFFF\uFFFF",
                "日本語のID",
                "😀",
                "🙂x🙃y");
        for (String s : edge) {
            assertEquals(ServerRoutingReference.serverHash(s), Murmur3.hash(s), () -> "hash of " + codePoints(s));
        }
    }

    @Test
    void defaultRoutingNumShardsMatchesServerForEveryShardCount() {
        for (int n = 1; n <= RoutingSpec.MAX_SHARDS; n++) {
            assertEquals(
                    org.elasticsearch.cluster.metadata.MetadataCreateIndexService.calculateNumRoutingShards(
                            n, org.elasticsearch.index.IndexVersion.current()),
                    RoutingSpec.defaultRoutingNumShards(n),
                    "shards " + n);
        }
    }

    static Stream<Arguments> configurations() {
        List<Arguments> args = new ArrayList<>();
        for (RoutingFunction f : RoutingFunction.values()) {
            args.add(Arguments.of("1 shard", spec(f, 1, 0, 1)));
            args.add(Arguments.of("5 shards, default routing shards", spec(f, 5, 0, 1)));
            args.add(Arguments.of("7 shards, default routing shards", spec(f, 7, 0, 1)));
            args.add(Arguments.of("12 shards split from 3 (routing_num_shards 768)", spec(f, 12, 768, 1)));
            args.add(Arguments.of("2 shards shrunk from 8 (routing_num_shards 1024)", spec(f, 2, 1024, 1)));
            args.add(Arguments.of("routing_num_shards = shards (no split headroom)", spec(f, 6, 6, 1)));
            args.add(Arguments.of("6 shards partitioned by 3", spec(f, 6, 0, 3)));
            args.add(Arguments.of("30 shards partitioned by 5", spec(f, 30, 0, 5)));
            args.add(Arguments.of("1024 shards", spec(f, 1024, 0, 1)));
        }
        return args.stream();
    }

    @ParameterizedTest(name = "{0} ({1})")
    @MethodSource("configurations")
    void shardsMatchServerForEveryIdAndRouting(String name, RoutingSpec spec) {
        assumeTrue(
                spec.function() == RoutingFunction.LEGACY || ServerRoutingReference.serverHasModulo(),
                "the server jar under test predates the modulo function");
        ServerRoutingReference server = ServerRoutingReference.of(spec);
        RoutingCalculator calc = RoutingCalculator.of(spec);
        for (int i = 0; i < IDS_SAMPLE.size(); i++) {
            String id = IDS_SAMPLE.get(i);
            String routing = spec.isPartitioned() || i % 2 == 0 ? ROUTINGS.get(i % ROUTINGS.size()) : null;
            int expected = server.shard(id, routing);
            int actual = calc.shard(id, routing);
            if (expected != actual) {
                fail(name + ": id " + codePoints(id) + " routing " + routing + " → server " + expected + ", esrel "
                        + actual);
            }
        }
        for (String routing : ROUTINGS) {
            assertThat(calc.searchShards(routing))
                    .as("search shards of %s", routing)
                    .containsExactly(server.searchShards(routing));
        }
    }

    private static RoutingSpec spec(RoutingFunction f, int shards, int routingNumShards, int partition) {
        RoutingSpec.Builder b = RoutingSpec.builder()
                .numberOfShards(shards)
                .routingPartitionSize(partition)
                .function(f);
        if (routingNumShards > 0) {
            b.routingNumShards(routingNumShards);
        }
        return b.build();
    }

    private static String codePoints(String s) {
        StringBuilder sb = new StringBuilder("[");
        s.chars().forEach(c -> sb.append(String.format("\\u%04x", c)));
        return sb.append(']').toString();
    }
}
