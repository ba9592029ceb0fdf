package io.github.esrel.plugin.routing;

import static io.github.esrel.plugin.routing.TestIndices.createdWith;
import static io.github.esrel.plugin.routing.TestIndices.index;
import static io.github.esrel.plugin.routing.TestIndices.randomId;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.Random;
import java.util.TreeSet;
import org.elasticsearch.cluster.metadata.IndexMetadata;
import org.elasticsearch.cluster.routing.IndexRouting;
import org.junit.jupiter.api.Test;

/** The hand-written modulo function (what a 9.3 node answers for a hypothetical 9.4+ index) against the server's. */
class ModuloShardFunctionTest {

    private static final long SEED = 20261130L;

    @Test
    void shouldWriteOutTheModuloFunctionLikeTheServer() {
        // On 9.5 the server has the modulo function: the hand-written one (used on 9.3) must agree with it.
        if (RoutingCompat.newIndexFunction() != RoutingFunctionType.MODULO) {
            return;
        }
        Random random = new Random(SEED);
        for (int shards : new int[] {1, 2, 5, 7, 16}) {
            for (int partitionSize : new int[] {1, 2, 3}) {
                IndexMetadata imd = index(
                                "m", createdWith(RoutingFunctionType.MODULO), shards, 1024 * shards, partitionSize)
                        .build();
                IndexRouting server = IndexRouting.fromIndexMetadata(imd);
                ModuloShardFunction mine = new ModuloShardFunction(shards, partitionSize);
                for (int i = 0; i < 200; i++) {
                    String id = randomId(random);
                    String routing = partitionSize > 1 ? randomId(random) : (i % 2 == 0 ? null : randomId(random));
                    assertThat(mine.shard(id, routing)).isEqualTo(server.getShard(id, routing));
                    if (routing != null) {
                        TreeSet<Integer> a = new TreeSet<>();
                        TreeSet<Integer> b = new TreeSet<>();
                        mine.searchShards(routing, a::add);
                        server.collectSearchShards(routing, b::add);
                        assertThat(a).isEqualTo(b);
                    }
                }
            }
        }
    }
}
