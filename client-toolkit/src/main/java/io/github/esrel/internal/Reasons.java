package io.github.esrel.internal;

import co.elastic.clients.elasticsearch._types.ElasticsearchException;
import co.elastic.clients.elasticsearch._types.ErrorCause;
import io.github.esrel.retry.Failures;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * What Elasticsearch said went wrong, for esrel's messages: every type and reason of an error and of the causes
 * it was caused by, then its root causes not said already, as {@code [type] reason; caused by [type] reason; root cause [type] reason}.
 */
public final class Reasons {

    private Reasons() {}

    /**
     * The error's chain of types and reasons.
     *
     * @param error the error, may be {@code null}
     * @return the chain; {@code "(no reason given)"} without an error
     */
    public static String of(@Nullable ErrorCause error) {
        if (error == null) {
            return "(no reason given)";
        }
        StringBuilder sb = new StringBuilder();
        Set<String> said = new HashSet<>();
        for (ErrorCause c = error; c != null; c = c.causedBy()) {
            String one = "[" + c.type() + "] " + c.reason();
            said.add(one);
            sb.append(sb.length() == 0 ? "" : "; caused by ").append(one);
        }
        if (error.rootCause() != null) {
            for (ErrorCause c : error.rootCause()) {
                String one = "[" + c.type() + "] " + c.reason();
                if (said.add(one)) { // a root cause is often the error itself again
                    sb.append("; root cause ").append(one);
                }
            }
        }
        return sb.toString();
    }

    /**
     * The exception's error chain, or its message when the answer carried no error.
     *
     * @param e the exception
     * @return the chain or the message
     */
    public static String of(ElasticsearchException e) {
        return e.error() == null ? String.valueOf(e.getMessage()) : of(e.error());
    }

    /**
     * The innermost cause of a failure: what went wrong first, often with the plainest message.
     *
     * @param failure the failure
     * @return the last of {@link Failures#causes(Throwable)}; {@code failure} itself when it has no cause
     */
    public static Throwable root(Throwable failure) {
        List<Throwable> chain = Failures.causes(failure);
        return chain.get(chain.size() - 1);
    }

    /**
     * Whether a write or delete that failed with {@code e} may have been applied all the same: a server error (5xx)
     * other than those Elasticsearch answers before it executes anything (no active primary shard within the timeout,
     * a block, a full queue). A 4xx (a conflict included, judged apart) and a rejection (429) were refused.
     *
     * @param e the failure of a write that was sent
     * @return true when its outcome is unknown
     */
    public static boolean mayHaveApplied(ElasticsearchException e) {
        if (e.status() < 500) {
            return false;
        }
        return !(hasType(e, "unavailable_shards_exception")
                || hasType(e, "no_shard_available_action_exception")
                || hasType(e, "cluster_block_exception")
                || hasType(e, "es_rejected_execution_exception"));
    }

    /**
     * Whether the error or one of its causes has this type.
     *
     * @param e the exception
     * @param type an Elasticsearch error type, such as {@code index_not_found_exception}
     * @return true if the type occurs in the chain
     */
    public static boolean hasType(ElasticsearchException e, String type) {
        for (ErrorCause c = e.error(); c != null; c = c.causedBy()) {
            if (type.equals(c.type())) {
                return true;
            }
        }
        return false;
    }
}
