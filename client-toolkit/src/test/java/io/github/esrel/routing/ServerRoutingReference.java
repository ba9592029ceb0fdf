package io.github.esrel.routing;

import java.util.Arrays;
import org.elasticsearch.cluster.metadata.IndexMetadata;
import org.elasticsearch.cluster.routing.IndexRouting;
import org.elasticsearch.common.logging.LogConfigurator;
import org.elasticsearch.common.settings.Settings;
import org.elasticsearch.index.IndexVersion;
import org.elasticsearch.index.IndexVersions;

/**
 * The server's own routing code ({@code IndexRouting.fromIndexMetadata}) for a given {@link RoutingSpec},
 * whatever server jar the build uses: 9.5 knows both functions, 8.19 to 9.3 only the legacy one
 * (reflection keeps this file compiling against all of them).
 */
final class ServerRoutingReference {

    static {
        // The server's classes log through its own facade, which is unset outside a node.
        LogConfigurator.configureESLogging();
    }

    private final IndexRouting routing;

    private ServerRoutingReference(IndexRouting routing) {
        this.routing = routing;
    }

    /** Whether the server jar on the test classpath has the modulo function (9.4+). */
    static boolean serverHasModulo() {
        return moduloVersion() != null;
    }

    static ServerRoutingReference of(RoutingSpec spec) {
        IndexVersion created = spec.function() == RoutingFunction.MODULO ? moduloVersion() : legacyVersion();
        if (created == null) {
            throw new IllegalStateException("this server jar has no modulo routing function");
        }
        Settings settings = Settings.builder()
                .put(IndexMetadata.SETTING_VERSION_CREATED, created.id())
                .put(IndexMetadata.SETTING_NUMBER_OF_SHARDS, spec.numberOfShards())
                .put(IndexMetadata.SETTING_NUMBER_OF_REPLICAS, 0)
                .put(IndexMetadata.SETTING_ROUTING_PARTITION_SIZE, spec.routingPartitionSize())
                .build();
        IndexMetadata metadata = IndexMetadata.builder("reference")
                .settings(settings)
                .setRoutingNumShards(spec.routingNumShards())
                .build();
        return new ServerRoutingReference(IndexRouting.fromIndexMetadata(metadata));
    }

    int shard(String id, String routing) {
        return this.routing.getShard(id, routing);
    }

    int[] searchShards(String routing) {
        java.util.TreeSet<Integer> shards = new java.util.TreeSet<>();
        this.routing.collectSearchShards(routing, shards::add);
        return shards.stream().mapToInt(Integer::intValue).toArray();
    }

    static int serverHash(String s) {
        return org.elasticsearch.cluster.routing.Murmur3HashFunction.hash(s);
    }

    private static IndexVersion legacyVersion() {
        // The last version before modulo routing where the jar has it (9.4+), else this jar's own (8.19 to 9.3):
        // every index created before 9.4 routes the legacy way.
        IndexVersion modulo = moduloVersion();
        return modulo == null ? IndexVersion.current() : IndexVersion.fromId(modulo.id() - 1);
    }

    private static IndexVersion moduloVersion() {
        try {
            return (IndexVersion)
                    IndexVersions.class.getField("MOD_ROUTING_FUNCTION").get(null);
        } catch (NoSuchFieldException e) {
            return null;
        } catch (IllegalAccessException e) {
            throw new IllegalStateException(e);
        }
    }

    static String describe(int[] a) {
        return Arrays.toString(a);
    }
}
