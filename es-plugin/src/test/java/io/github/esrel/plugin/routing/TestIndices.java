package io.github.esrel.plugin.routing;

import io.github.esrel.plugin.compat.ClusterIndices;
import io.github.esrel.plugin.compat.TestClusterIndices;
import java.util.Random;
import org.elasticsearch.cluster.metadata.AliasMetadata;
import org.elasticsearch.cluster.metadata.IndexMetadata;
import org.elasticsearch.cluster.routing.Murmur3HashFunction;
import org.elasticsearch.common.logging.LogConfigurator;
import org.elasticsearch.common.settings.Settings;
import org.elasticsearch.index.IndexVersion;

/** Index metadata, clusters and ids for unit tests, built with the server's own classes. */
public final class TestIndices {

    static {
        // IndexMetadata.build() touches classes that log; without Elasticsearch's logging set up they fail
        // to initialize (ESTestCase does this, but it refuses to run as root).
        LogConfigurator.configureESLogging();
    }

    private TestIndices() {}

    /** The creation version that gives an index the routing function {@code type} on this server. */
    public static IndexVersion createdWith(RoutingFunctionType type) {
        return RoutingCompat.creationVersionFor(type);
    }

    /** Index metadata like the server keeps it; {@code IndexMetadata.builder} does not default routing_num_shards. */
    public static IndexMetadata.Builder index(
            String name, IndexVersion created, int shards, int routingShards, int partitionSize) {
        Settings.Builder settings = Settings.builder()
                .put(IndexMetadata.SETTING_VERSION_CREATED, created)
                .put(IndexMetadata.SETTING_NUMBER_OF_SHARDS, shards)
                .put(IndexMetadata.SETTING_NUMBER_OF_REPLICAS, 1)
                .put(IndexMetadata.SETTING_ROUTING_PARTITION_SIZE, partitionSize);
        IndexMetadata.Builder builder =
                IndexMetadata.builder(name).settings(settings).setRoutingNumShards(routingShards);
        if (partitionSize > 1) {
            builder.putMapping("{\"_doc\":{\"_routing\":{\"required\":true}}}");
        }
        return builder;
    }

    /** A cluster holding exactly these indices. */
    public static ClusterIndices cluster(IndexMetadata.Builder... indices) {
        return TestClusterIndices.of(indices);
    }

    public static AliasMetadata alias(String name, String indexRouting, String searchRouting) {
        return AliasMetadata.builder(name)
                .indexRouting(indexRouting)
                .searchRouting(searchRouting)
                .build();
    }

    /** Ids of every kind that matters to a UTF-16 hash: ASCII, accented, CJK, emoji (surrogate pairs), and
     * any code point at all (lone surrogates too), up to 200 of them. */
    public static String randomId(Random random) {
        int kind = random.nextInt(6);
        int length = 1 + random.nextInt(kind == 5 ? 200 : 20);
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < length; i++) {
            switch (kind) {
                case 0 -> b.append((char) ('0' + random.nextInt(10)));
                case 1 -> b.append((char) (' ' + random.nextInt(95)));
                case 2 -> b.append((char) (0xC0 + random.nextInt(0x17F - 0xC0)));
                case 3 -> b.append((char) (0x4E00 + random.nextInt(0x9FFF - 0x4E00)));
                case 4 -> b.appendCodePoint(0x1F300 + random.nextInt(0x1FAFF - 0x1F300));
                default ->
                    b.appendCodePoint(
                            1 + random.nextInt(Character.MAX_CODE_POINT)); // any code point, lone surrogates included
            }
        }
        return b.toString();
    }

    /**
     * The routing formulas written out independently of the server (see the notes in shared/): a second
     * opinion the calculator must agree with.
     */
    public static int expectedShard(
            RoutingFunctionType type, int shards, int routingShards, int partitionSize, String id, String routing) {
        int hash = Murmur3HashFunction.hash(routing == null ? id : routing);
        if (partitionSize > 1) {
            hash += Math.floorMod(Murmur3HashFunction.hash(id), partitionSize);
        }
        return type == RoutingFunctionType.MODULO
                ? Math.floorMod(hash, shards)
                : Math.floorMod(hash, routingShards) / (routingShards / shards);
    }
}
