package io.github.esrel.routing;

import io.github.esrel.doc.DocRef;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * Computes, in pure Java and without the cluster, the shard Elasticsearch puts a document on: the
 * same arithmetic as the server's {@code IndexRouting} (Murmur3 over UTF-16LE, {@code floorMod}, the
 * legacy or modulo function, partition offsets). Immutable and thread-safe.
 *
 * <pre>{@code
 * RoutingCalculator calc = RoutingClient.of(b -> b.client(es)).calculator("orders");
 * int shard = calc.shard(DocRef.id("order-1").withRouting("tenant-7"));
 * Distribution d = calc.distribution(docs);          // how evenly do these land?
 * List<String> r = calc.routingValuesForShard(3, 10, "tenant-");   // values that land on shard 3
 * }</pre>
 *
 * <p>It cannot compute shards of indices that route on document fields ({@code index.routing_path},
 * time series): {@link RoutingClient} refuses to build a spec for those.
 */
public final class RoutingCalculator {

    private final RoutingSpec spec;

    private RoutingCalculator(RoutingSpec spec) {
        this.spec = Objects.requireNonNull(spec, "spec cannot be null");
    }

    /**
     * A calculator for the index these parameters describe.
     *
     * @param spec the routing parameters, not {@code null}
     * @return the calculator
     * @throws NullPointerException if {@code spec} is {@code null}
     */
    public static RoutingCalculator of(RoutingSpec spec) {
        return new RoutingCalculator(spec);
    }

    /**
     * The parameters this calculator computes with.
     *
     * @return the routing parameters
     */
    public RoutingSpec spec() {
        return spec;
    }

    /**
     * The shard of a document routed by its id: where Elasticsearch indexes it, and where a get, update or
     * delete by the same id looks for it.
     *
     * @param id the document id, not empty
     * @return the shard number, from 0 to {@code number_of_shards - 1}
     * @throws IllegalArgumentException if the id is null or empty, or if the index is partitioned or
     *     requires routing (Elasticsearch rejects such requests too)
     */
    public int shard(String id) {
        return shard(id, null);
    }

    /**
     * The shard of a document: where Elasticsearch indexes it with its id and routing value, and where a get,
     * update or delete with the same id and routing looks for it.
     *
     * @param doc the document (its index, if it names one, is this calculator's or an alias of it: not checked)
     * @return the shard number, from 0 to {@code number_of_shards - 1}
     * @throws NullPointerException if {@code doc} is {@code null}
     * @throws IllegalArgumentException if the document has no routing value on an index that is partitioned or
     *     requires routing (Elasticsearch rejects such requests too)
     */
    public int shard(DocRef doc) {
        Objects.requireNonNull(doc, "doc cannot be null");
        return shard(doc.id(), doc.routing());
    }

    /**
     * The hot path, in the argument order of the server's own {@code IndexRouting.getShard(id, routing)}; not
     * public so that callers cannot swap the two strings (they pass a {@link DocRef}).
     *
     * @throws IllegalArgumentException if the id is null or empty, or if routing is null on an index that is
     *     partitioned or requires routing (Elasticsearch rejects such requests too)
     */
    int shard(String id, @Nullable String routing) {
        if (id == null || id.isEmpty()) {
            throw new IllegalArgumentException("id must not be empty");
        }
        if (routing == null) {
            requireNoRouting(id);
            return spec.function().shard(Murmur3.hash(id), spec);
        }
        int offset = spec.isPartitioned() ? Math.floorMod(Murmur3.hash(id), spec.routingPartitionSize()) : 0;
        return spec.function().shard(Murmur3.hash(routing) + offset, spec);
    }

    /**
     * The shards a search with this routing visits, ascending and without duplicates: one shard, or up
     * to {@code routing_partition_size} shards on a partitioned index.
     *
     * @param routing the routing value of the search, not {@code null}
     * @return the shard numbers, sorted ascending, never empty
     * @throws NullPointerException if {@code routing} is {@code null}
     */
    public int[] searchShards(String routing) {
        Objects.requireNonNull(routing, "routing cannot be null");
        int hash = Murmur3.hash(routing);
        return Arrays.stream(searchShardsUnsorted(hash)).distinct().sorted().toArray();
    }

    private int[] searchShardsUnsorted(int hash) {
        int[] shards = new int[spec.routingPartitionSize()];
        for (int i = 0; i < shards.length; i++) {
            shards[i] = spec.function().shard(hash + i, spec);
        }
        return shards;
    }

    /**
     * How these documents spread over the shards.
     *
     * @param docs the documents to place
     * @return documents per shard of this index
     * @throws IllegalArgumentException as {@link #shard(DocRef)} for any document
     */
    public Distribution distribution(Iterable<DocRef> docs) {
        long[] counts = new long[spec.numberOfShards()];
        for (DocRef doc : docs) {
            counts[shard(doc)]++;
        }
        return new Distribution(counts);
    }

    /**
     * Finds routing values that land on the given shard: {@code prefix + n} for n = 0, 1, 2, … kept
     * when they route to {@code shard}. This is seed 002's remedy for skew: pick the routing of each
     * tenant or category so that the big ones go to different shards. On a partitioned index the
     * value's first partition shard (offset 0) is the one matched.
     *
     * @param shard the target shard, from 0 to {@code number_of_shards - 1}
     * @param count how many values to return
     * @param prefix the start of every value; {@code null} is the same as {@code ""}
     * @return {@code count} distinct values in increasing order of {@code n}, all landing on {@code shard}
     * @throws IllegalArgumentException if the shard is out of range or count is negative
     */
    public List<String> routingValuesForShard(int shard, int count, @Nullable String prefix) {
        if (shard < 0 || shard >= spec.numberOfShards()) {
            throw new IllegalArgumentException(
                    "shard must be between 0 and " + (spec.numberOfShards() - 1) + ", got " + shard);
        }
        if (count < 0) {
            throw new IllegalArgumentException("count must not be negative, got " + count);
        }
        String p = prefix == null ? "" : prefix;
        List<String> values = new ArrayList<>(count);
        // Each value hits a given shard with probability 1/number_of_shards, so this ends quickly.
        for (long n = 0; values.size() < count; n++) {
            String candidate = p + n;
            if (spec.function().shard(Murmur3.hash(candidate), spec) == shard) {
                values.add(candidate);
            }
        }
        return values;
    }

    private void requireNoRouting(String id) {
        if (spec.isPartitioned()) {
            throw new IllegalArgumentException("index " + describeIndex() + " is partitioned (routing_partition_size="
                    + spec.routingPartitionSize() + "): document [" + id + "] needs a routing value");
        }
        if (spec.routingRequired()) {
            throw new IllegalArgumentException("index " + describeIndex()
                    + " requires routing (_routing.required): document [" + id + "] needs a routing value");
        }
    }

    private String describeIndex() {
        return spec.index() == null ? "(hypothetical)" : "[" + spec.index() + "]";
    }

    @Override
    public String toString() {
        return "RoutingCalculator{" + spec + '}';
    }
}
