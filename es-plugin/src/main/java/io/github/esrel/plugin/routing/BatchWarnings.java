package io.github.esrel.plugin.routing;

import java.util.ArrayList;
import java.util.BitSet;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * Collects, doc by doc, the routing mistakes a batch reveals and turns them into warnings: documents that
 * could exist twice, routing used only sometimes, and partitioning that does not partition.
 */
public final class BatchWarnings {

    /** How many offending ids a message lists before it says "and N more". */
    public static final int MAX_LISTED = 5;

    private final RoutingParameters parameters;
    private final ShardFunction function;
    /** id → the first routing it was given with (a null routing is kept as a null value). */
    private final Map<String, String> firstRouting = new HashMap<>();

    private final Map<String, Integer> firstShard = new HashMap<>();
    /** ids that land on several shards → "routing [r] -> shard s" in order of appearance. */
    private final Map<String, Set<String>> splitIds = new LinkedHashMap<>();

    private final Set<String> routingValues = new LinkedHashSet<>();
    private final List<String> idsWithoutRouting = new ArrayList<>();
    private int docs;
    private int docsWithRouting;

    /**
     * Warnings for a batch on an index with these parameters and shard function.
     *
     * @param parameters the index's routing parameters
     * @param function   where its documents go
     */
    public BatchWarnings(RoutingParameters parameters, ShardFunction function) {
        this.parameters = parameters;
        this.function = function;
    }

    /**
     * Takes one document of the batch into account.
     *
     * @param id      the document's id
     * @param routing its routing, or null
     * @param shard   the shard it goes to
     */
    public void accept(String id, @Nullable String routing, int shard) {
        docs++;
        if (routing != null) {
            docsWithRouting++;
            routingValues.add(routing);
        } else if (idsWithoutRouting.size() < MAX_LISTED) {
            idsWithoutRouting.add(id);
        }
        Integer previous = firstShard.putIfAbsent(id, shard);
        if (previous == null) {
            firstRouting.put(id, routing);
        } else if (previous != shard || splitIds.containsKey(id)) {
            Set<String> placements = splitIds.computeIfAbsent(id, k -> {
                Set<String> s = new LinkedHashSet<>();
                s.add(placement(firstRouting.get(id), previous));
                return s;
            });
            placements.add(placement(routing, shard));
        }
    }

    /**
     * The warnings for the documents accepted so far.
     *
     * @return the messages, possibly empty
     */
    public List<String> warnings() {
        List<String> warnings = new ArrayList<>();
        partitionSpread(warnings);
        duplicates(warnings);
        mixedRouting(warnings);
        return warnings;
    }

    /**
     * Measures how many distinct shards each routing value of the batch really reaches, against what
     * routing_partition_size promises (on legacy indices the offsets 0..p-1 rarely cross a routing_factor
     * boundary).
     */
    private void partitionSpread(List<String> warnings) {
        if (parameters.partitioned() == false || routingValues.isEmpty()) {
            return;
        }
        int promised = Math.min(parameters.routingPartitionSize(), parameters.numberOfShards());
        int short_ = 0;
        long reachedTotal = 0;
        BitSet reached = new BitSet(parameters.numberOfShards());
        for (String routing : routingValues) {
            reached.clear();
            function.searchShards(routing, reached::set);
            int count = reached.cardinality();
            reachedTotal += count;
            if (count < promised) {
                short_++;
            }
        }
        if (short_ == 0) {
            return;
        }
        StringBuilder b = new StringBuilder();
        b.append("routing_partition_size is ")
                .append(parameters.routingPartitionSize())
                .append(", but ")
                .append(short_)
                .append(" of ")
                .append(routingValues.size())
                .append(" routing values in this batch reach fewer than ")
                .append(promised)
                .append(" shards (")
                .append(String.format(Locale.ROOT, "%.2f", reachedTotal / (double) routingValues.size()))
                .append(" on average)");
        if (parameters.function() == RoutingFunctionType.LEGACY) {
            b.append(": with the legacy routing function (indices created before ")
                    .append(RoutingFunctionType.MODULO_SINCE)
                    .append(") the offsets 0..")
                    .append(parameters.routingPartitionSize() - 1)
                    .append(" added to the routing hash rarely cross a routing_factor boundary (")
                    .append(parameters.routingFactor())
                    .append("), so partitioning barely spreads the data; an index created on ")
                    .append(RoutingFunctionType.MODULO_SINCE)
                    .append(" or later spreads each routing value over routing_partition_size shards");
        }
        warnings.add(b.toString());
    }

    /** Seed 002's anomaly: ids are unique per shard only, so one id on two shards is two documents. */
    private void duplicates(List<String> warnings) {
        if (splitIds.isEmpty()) {
            return;
        }
        StringBuilder b = new StringBuilder();
        b.append(splitIds.size())
                .append(splitIds.size() == 1 ? " id is" : " ids are")
                .append(" given with routings that put it on different shards, so the index can hold it twice")
                .append(" (ids are unique within a shard only: a write with the other routing adds a second document")
                .append(" instead of replacing the first): ");
        int listed = 0;
        for (Map.Entry<String, Set<String>> e : splitIds.entrySet()) {
            if (listed == MAX_LISTED) {
                b.append("; and ").append(splitIds.size() - MAX_LISTED).append(" more");
                break;
            }
            if (listed > 0) {
                b.append("; ");
            }
            b.append('[').append(e.getKey()).append("] ").append(String.join(", ", e.getValue()));
            listed++;
        }
        warnings.add(b.toString());
    }

    private void mixedRouting(List<String> warnings) {
        if (docsWithRouting == 0 || docsWithRouting == docs) {
            return;
        }
        int without = docs - docsWithRouting;
        warnings.add(docsWithRouting
                + " of "
                + docs
                + " docs have a routing and "
                + without
                + " do not: a document indexed with a routing must be read, updated and deleted with that same routing,"
                + " so mixing both on one index usually means some requests forget it (ids without routing: "
                + listIds(idsWithoutRouting, without)
                + ")");
    }

    private static String placement(@Nullable String routing, int shard) {
        return (routing == null ? "with no routing" : "with routing [" + routing + "]") + " -> shard " + shard;
    }

    /**
     * {@code [a, b, c] and 7 more}: enough to find the culprits without echoing a 100k batch.
     *
     * @param ids   the ids, of which the first {@link #MAX_LISTED} are listed
     * @param total how many there are in all
     * @return the list for a message
     */
    public static String listIds(List<String> ids, int total) {
        StringBuilder b = new StringBuilder("[");
        for (int i = 0; i < ids.size() && i < MAX_LISTED; i++) {
            if (i > 0) {
                b.append(", ");
            }
            b.append(ids.get(i));
        }
        b.append(']');
        int shown = Math.min(ids.size(), MAX_LISTED);
        if (total > shown) {
            b.append(" and ").append(total - shown).append(" more");
        }
        return b.toString();
    }
}
