package io.github.esrel.plugin.routing;

import java.util.Locale;

/**
 * The two functions Elasticsearch uses to turn a routing hash into a shard number. Which one an index
 * uses is fixed by the version that created it, so a shard calculator that ignores it is wrong on
 * every index of the other kind.
 */
public enum RoutingFunctionType {
    /**
     * Indices created before 9.4.0 (every 8.x index):
     * {@code floorMod(hash, routing_num_shards) / routing_factor}.
     */
    LEGACY,
    /** Indices created on or after 9.4.0: {@code floorMod(hash, number_of_shards)}. */
    MODULO;

    /** The first release whose new indices use {@link #MODULO}. */
    public static final ReleaseVersion MODULO_SINCE = new ReleaseVersion(9, 4, 0);

    /**
     * The function for an index created by the given Elasticsearch release.
     *
     * @param createdBy the release that created the index
     * @return {@link #LEGACY} before {@link #MODULO_SINCE}, else {@link #MODULO}
     */
    public static RoutingFunctionType forRelease(ReleaseVersion createdBy) {
        return createdBy.before(MODULO_SINCE) ? LEGACY : MODULO;
    }

    /**
     * The name used in requests and responses: {@code legacy} or {@code modulo}.
     *
     * @return the lowercase name, as the {@code routing_function} field shows it
     */
    public String jsonName() {
        return name().toLowerCase(Locale.ROOT);
    }

    /**
     * Parses {@code legacy} or {@code modulo}.
     *
     * @param name the {@code routing_function} of a request (exactly, lowercase)
     * @return the function named
     * @throws IllegalArgumentException naming the accepted values
     */
    public static RoutingFunctionType fromJsonName(String name) {
        for (RoutingFunctionType type : values()) {
            if (type.jsonName().equals(name)) {
                return type;
            }
        }
        throw new IllegalArgumentException("routing_function must be [legacy] or [modulo], got [" + name + "]");
    }
}
