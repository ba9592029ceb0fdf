package io.github.esrel.internal;

import co.elastic.clients.elasticsearch._types.ShardFailure;
import co.elastic.clients.elasticsearch._types.ShardStatistics;
import java.util.List;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * Searches that some shards did not answer. By default Elasticsearch answers a search even when shards of the
 * index failed (a node frozen or gone, a point in time whose reader lived on that node), with the hits of the
 * shards that answered and {@code _shards.failed} above zero. A page of such an answer is not a page of the
 * whole index: a stream would step past the documents of the missing shards, a rename would report done with
 * files left behind. Every esrel read that needs the whole answer asks with {@code
 * allow_partial_search_results=false} where it can and checks the answer with {@link #of} everywhere.
 */
public final class ShardFailures {

    private ShardFailures() {}

    /** Failures of the request itself (a query some indices of a pattern cannot run): asking again cannot help. */
    private static final Set<String> REQUEST_ERRORS = Set.of(
            "query_shard_exception",
            "search_parse_exception",
            "parsing_exception",
            "illegal_argument_exception",
            "number_format_exception");

    /**
     * The status to report a search some shards failed with: 400 when every failure is the request's (a query the
     * shards of one index of a pattern cannot run), 503 otherwise (a shard copy or its node is unavailable; the same
     * search may succeed once the cluster has recovered).
     *
     * @param shards the {@code _shards} section of an answer with failed shards
     * @return 400 or 503
     */
    public static int status(ShardStatistics shards) {
        List<ShardFailure> failures = shards == null ? List.of() : shards.failures();
        if (failures.isEmpty()) {
            return 503;
        }
        for (ShardFailure f : failures) {
            if (f.reason() == null || !REQUEST_ERRORS.contains(f.reason().type())) {
                return 503;
            }
        }
        return 400;
    }

    /**
     * What went wrong when shards did not answer a search.
     *
     * @param shards the {@code _shards} section of a search, count or scroll answer; may be {@code null}
     * @return {@code null} when every shard searched answered (skipped shards are fine: they hold no match);
     *     otherwise {@code "n of m shards failed: [index] on node ...: reason; ..."}
     */
    public static @Nullable String of(ShardStatistics shards) {
        if (shards == null || shards.failed() == null || shards.failed().intValue() == 0) {
            return null;
        }
        StringBuilder sb = new StringBuilder()
                .append(shards.failed().intValue())
                .append(" of ")
                .append(shards.total().intValue())
                .append(" shards failed");
        List<ShardFailure> failures = shards.failures();
        String sep = ": ";
        int shown = 0;
        for (ShardFailure f : failures) {
            if (shown++ == 3) {
                sb.append("; and ").append(failures.size() - 3).append(" more");
                break;
            }
            sb.append(sep)
                    .append('[')
                    .append(f.index())
                    .append(']'); // not ShardFailure.shard(): an int in elasticsearch-java 8.15, an Integer later
            if (f.node() != null) {
                sb.append(" on node ").append(f.node());
            }
            sb.append(": ").append(Reasons.of(f.reason()));
            sep = "; ";
        }
        return sb.toString();
    }
}
