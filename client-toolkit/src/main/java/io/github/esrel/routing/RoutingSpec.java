package io.github.esrel.routing;

import io.github.esrel.internal.Checks;
import java.util.Objects;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * The routing parameters of one index: everything needed to compute the shard of a document
 * without asking the cluster. Immutable and thread-safe.
 *
 * <pre>{@code
 * RoutingSpec spec = RoutingSpec.of(b -> b.numberOfShards(5).function(RoutingFunction.LEGACY));
 * int shard = RoutingCalculator.of(spec).shard("user-42", null);
 * }</pre>
 *
 * <p>Get one for a live index from {@link RoutingClient#spec(String)}.
 */
public final class RoutingSpec {

    /** Elasticsearch's upper bound for {@code index.number_of_shards}. */
    public static final int MAX_SHARDS = 1024;

    private final @Nullable String index;
    private final int numberOfShards;
    private final int routingNumShards;
    private final int routingPartitionSize;
    private final RoutingFunction function;
    private final boolean routingRequired;

    private RoutingSpec(Builder b) {
        this.index = b.index;
        this.numberOfShards = b.numberOfShards;
        this.routingNumShards =
                b.routingNumShards == 0 ? defaultRoutingNumShards(b.numberOfShards) : b.routingNumShards;
        this.routingPartitionSize = b.routingPartitionSize;
        this.function = b.function;
        this.routingRequired = b.routingRequired;
    }

    /**
     * Builds a spec with a lambda, in the style of the elasticsearch-java client.
     *
     * @param fn sets the parameters on the builder it is given and returns it
     * @return the new spec
     * @throws IllegalArgumentException as {@link Builder#build()}
     */
    public static RoutingSpec of(Function<Builder, Builder> fn) {
        return fn.apply(new Builder()).build();
    }

    /**
     * A builder with the defaults: no index name, no shard count (required), not partitioned,
     * {@link RoutingFunction#MODULO}, routing not required.
     *
     * @return a new builder
     */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * The {@code routing_num_shards} Elasticsearch gives a new index with {@code n} shards when none is
     * set: {@code n << max(1, 10 - ceil(log2 n))}, which allows splitting up to about 1024 shards
     * (5 → 640, 3 → 768, 1 → 1024). {@code _split} and {@code _shrink} keep the source's value.
     *
     * @param numberOfShards the number of shards {@code n}
     * @return the default {@code routing_num_shards}, a multiple of {@code n}
     * @throws IllegalArgumentException unless {@code 1 <= n <= 1024}
     */
    public static int defaultRoutingNumShards(int numberOfShards) {
        checkShards(numberOfShards);
        int ceilLog2 = 32 - Integer.numberOfLeadingZeros(numberOfShards - 1);
        int splits = Math.max(1, 10 - ceilLog2);
        return numberOfShards << splits;
    }

    /**
     * The index these parameters were read from, or {@code null} for a hypothetical index.
     *
     * @return the index name, or {@code null}
     */
    public @Nullable String index() {
        return index;
    }

    /**
     * {@code index.number_of_shards}.
     *
     * @return the number of primary shards, from 1 to {@value #MAX_SHARDS}
     */
    public int numberOfShards() {
        return numberOfShards;
    }

    /**
     * {@code routing_num_shards}: the modulus of the legacy function, a multiple of the number of shards.
     *
     * @return the routing number of shards
     */
    public int routingNumShards() {
        return routingNumShards;
    }

    /**
     * {@code routing_num_shards / number_of_shards}: the legacy function's divisor.
     *
     * @return the routing factor, at least 1
     */
    public int routingFactor() {
        return routingNumShards / numberOfShards;
    }

    /**
     * {@code index.routing_partition_size}; 1 means not partitioned.
     *
     * @return the partition size, at least 1
     */
    public int routingPartitionSize() {
        return routingPartitionSize;
    }

    /**
     * Whether a routing value spreads over several shards ({@code routing_partition_size > 1}); such
     * an index needs a routing value on every document.
     *
     * @return true if the index is partitioned
     */
    public boolean isPartitioned() {
        return routingPartitionSize > 1;
    }

    /**
     * How a routing hash becomes a shard number.
     *
     * @return the routing function
     */
    public RoutingFunction function() {
        return function;
    }

    /**
     * Whether the mapping sets {@code _routing.required}: writes and gets without routing fail.
     *
     * @return true if routing is required
     */
    public boolean routingRequired() {
        return routingRequired;
    }

    @Override
    public boolean equals(Object o) {
        if (this == o) {
            return true;
        }
        if (!(o instanceof RoutingSpec)) {
            return false;
        }
        RoutingSpec that = (RoutingSpec) o;
        return numberOfShards == that.numberOfShards
                && routingNumShards == that.routingNumShards
                && routingPartitionSize == that.routingPartitionSize
                && routingRequired == that.routingRequired
                && function == that.function
                && Objects.equals(index, that.index);
    }

    @Override
    public int hashCode() {
        return Objects.hash(index, numberOfShards, routingNumShards, routingPartitionSize, function, routingRequired);
    }

    @Override
    public String toString() {
        return "RoutingSpec{index=" + index
                + ", number_of_shards=" + numberOfShards
                + ", routing_num_shards=" + routingNumShards
                + ", routing_factor=" + routingFactor()
                + ", routing_partition_size=" + routingPartitionSize
                + ", routing_function=" + function
                + ", routing_required=" + routingRequired + '}';
    }

    private static void checkShards(int numberOfShards) {
        if (numberOfShards < 1 || numberOfShards > MAX_SHARDS) {
            throw new IllegalArgumentException(
                    "number_of_shards must be between 1 and " + MAX_SHARDS + ", got " + numberOfShards);
        }
    }

    /** Builder for {@link RoutingSpec}. Not thread-safe. */
    public static final class Builder {
        private @Nullable String index;
        private int numberOfShards;
        private int routingNumShards;
        private int routingPartitionSize = 1;
        private RoutingFunction function = RoutingFunction.MODULO;
        private boolean routingRequired;

        private Builder() {}

        /**
         * The index name, for messages only. Default: none (a hypothetical index).
         *
         * @param index the index name, or {@code null}
         * @return this builder
         */
        public Builder index(String index) {
            this.index = index;
            return this;
        }

        /**
         * {@code index.number_of_shards}. Required.
         *
         * @param numberOfShards the number of primary shards
         * @return this builder
         * @throws IllegalArgumentException unless between 1 and 1024
         */
        public Builder numberOfShards(int numberOfShards) {
            checkShards(numberOfShards);
            this.numberOfShards = numberOfShards;
            return this;
        }

        /**
         * {@code routing_num_shards}. Default: {@link #defaultRoutingNumShards(int)} of the number of
         * shards, as for a new index.
         *
         * @param routingNumShards the routing number of shards, a multiple of the number of shards
         * @return this builder
         * @throws IllegalArgumentException if not positive
         */
        public Builder routingNumShards(int routingNumShards) {
            this.routingNumShards = Checks.positive(routingNumShards, "routing_num_shards");
            return this;
        }

        /**
         * {@code index.routing_partition_size}. Default 1 (not partitioned).
         *
         * @param routingPartitionSize the partition size, below {@code routing_num_shards}
         * @return this builder
         * @throws IllegalArgumentException if not positive
         */
        public Builder routingPartitionSize(int routingPartitionSize) {
            this.routingPartitionSize = Checks.positive(routingPartitionSize, "routing_partition_size");
            return this;
        }

        /**
         * The routing function. Default {@link RoutingFunction#MODULO}, what a 9.4+ cluster uses for
         * new indices.
         *
         * @param function the function, not {@code null}
         * @return this builder
         */
        public Builder function(RoutingFunction function) {
            this.function = Objects.requireNonNull(function, "function cannot be null");
            return this;
        }

        /**
         * Whether the mapping sets {@code _routing.required}. Default false.
         *
         * @param routingRequired true if documents must have a routing value
         * @return this builder
         */
        public Builder routingRequired(boolean routingRequired) {
            this.routingRequired = routingRequired;
            return this;
        }

        /**
         * Creates the spec, checking the parameters together.
         *
         * @return the new spec
         * @throws IllegalArgumentException if the shard count is missing, if {@code routing_num_shards}
         *     is not a multiple of {@code number_of_shards} (Elasticsearch refuses such an index), or
         *     if the partition size is not below {@code routing_num_shards} (same rule as the server)
         */
        public RoutingSpec build() {
            if (numberOfShards == 0) {
                throw new IllegalArgumentException("number_of_shards is required");
            }
            int rns = routingNumShards == 0 ? defaultRoutingNumShards(numberOfShards) : routingNumShards;
            if (rns < numberOfShards || rns % numberOfShards != 0) {
                throw new IllegalArgumentException("routing_num_shards [" + rns
                        + "] must be a multiple of number_of_shards [" + numberOfShards + "]");
            }
            if (routingPartitionSize > 1 && routingPartitionSize >= rns) {
                throw new IllegalArgumentException("routing_partition_size [" + routingPartitionSize
                        + "] must be less than routing_num_shards [" + rns + "]");
            }
            return new RoutingSpec(this);
        }
    }
}
