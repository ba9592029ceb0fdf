package io.github.esrel.routing;

import java.util.Locale;

/**
 * How Elasticsearch turns a routing hash into a shard number. Which one applies depends on the
 * version that <em>created</em> the index, not on the version the cluster runs now.
 */
public enum RoutingFunction {

    /**
     * Indices created before 9.4.0 (every 8.x index): {@code floorMod(hash, routing_num_shards) / routing_factor}.
     * The modulus is {@code routing_num_shards}, which is larger than {@code number_of_shards} so that
     * the index can later be split; {@code hash % number_of_shards} is wrong for these indices.
     */
    LEGACY("legacy"),

    /** Indices created on or after 9.4.0: {@code floorMod(hash, number_of_shards)}. */
    MODULO("modulo");

    /**
     * The first {@code index.version.created} id (an {@code IndexVersion}, not a release number) whose
     * indices use {@link #MODULO}: {@code IndexVersions.MOD_ROUTING_FUNCTION} in the server.
     */
    public static final int MODULO_SINCE_INDEX_VERSION_ID = 9_064_000;

    private final String jsonName;

    RoutingFunction(String jsonName) {
        this.jsonName = jsonName;
    }

    /**
     * The name used in JSON by the esrel plugin: {@code "legacy"} or {@code "modulo"}.
     *
     * @return the lower-case JSON name
     */
    public String jsonName() {
        return jsonName;
    }

    /**
     * The function for an index created on the given Elasticsearch release.
     *
     * @param releaseVersion such as {@code "8.19.21"} or {@code "9.5.3"}
     * @return {@link #MODULO} for 9.4 and later, otherwise {@link #LEGACY}
     * @throws IllegalArgumentException if the version is not {@code major.minor[.patch]}
     */
    public static RoutingFunction forRelease(String releaseVersion) {
        String[] parts =
                releaseVersion == null ? new String[0] : releaseVersion.trim().split("[.-]");
        try {
            int major = Integer.parseInt(parts[0]);
            int minor = Integer.parseInt(parts[1]);
            return major > 9 || (major == 9 && minor >= 4) ? MODULO : LEGACY;
        } catch (RuntimeException e) {
            throw new IllegalArgumentException(
                    "index version must be an Elasticsearch release such as 9.5.3, got [" + releaseVersion + "]", e);
        }
    }

    /**
     * The function for an index whose setting {@code index.version.created} has this id.
     *
     * @param indexVersionCreated the value of {@code index.version.created}, an {@code IndexVersion} id
     * @return {@link #MODULO} from {@link #MODULO_SINCE_INDEX_VERSION_ID} on, otherwise {@link #LEGACY}
     */
    public static RoutingFunction forIndexVersionId(int indexVersionCreated) {
        return indexVersionCreated >= MODULO_SINCE_INDEX_VERSION_ID ? MODULO : LEGACY;
    }

    /**
     * Parses {@code "legacy"} or {@code "modulo"} (any case).
     *
     * @param name the JSON name
     * @return the function of that name
     * @throws IllegalArgumentException for anything else
     */
    public static RoutingFunction fromJsonName(String name) {
        for (RoutingFunction f : values()) {
            if (f.jsonName.equalsIgnoreCase(name)) {
                return f;
            }
        }
        throw new IllegalArgumentException("routing function must be [legacy] or [modulo], got [" + name + "]");
    }

    int shard(int hash, RoutingSpec spec) {
        if (this == MODULO) {
            return Math.floorMod(hash, spec.numberOfShards());
        }
        return Math.floorMod(hash, spec.routingNumShards()) / spec.routingFactor();
    }

    @Override
    public String toString() {
        return name().toLowerCase(Locale.ROOT);
    }
}
