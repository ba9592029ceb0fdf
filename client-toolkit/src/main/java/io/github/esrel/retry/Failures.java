package io.github.esrel.retry;

import co.elastic.clients.elasticsearch._types.ElasticsearchException;
import co.elastic.clients.elasticsearch._types.ErrorCause;
import co.elastic.clients.elasticsearch._types.ErrorResponse;
import io.github.esrel.EsrelException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Set;
import java.util.function.Predicate;
import org.jspecify.annotations.Nullable;

/**
 * Classifies failures from Elasticsearch: the HTTP status of an exception (looking through causes,
 * so esrel's own exceptions that wrap the client's are classified alike) and the ready-made retry
 * predicates of {@link RetryPolicy}.
 */
public final class Failures {

    /** Status of a version conflict ({@code version_conflict_engine_exception}). */
    public static final int CONFLICT = 409;
    /** Status of a rejection: a full write queue, a circuit breaker ({@code es_rejected_execution_exception}). */
    public static final int TOO_MANY_REQUESTS = 429;

    private Failures() {}

    /**
     * The HTTP status Elasticsearch answered with: from the first {@link ElasticsearchException} in
     * the cause chain, or from an esrel exception in it ({@link EsrelException}). 0 when there
     * was no answer (an I/O failure).
     *
     * @param failure the failure to classify; {@code null} gives 0
     * @return the HTTP status, or 0 when none is found in the cause chain
     */
    public static int status(@Nullable Throwable failure) {
        for (Throwable t : causes(failure)) {
            if (t instanceof ElasticsearchException ee) {
                return ee.status();
            }
            if (t instanceof EsrelException s && s.status() != 0) {
                return s.status();
            }
        }
        return 0;
    }

    /**
     * A failure and its causes, outermost first: the one walk of a cause chain for esrel's classifications (as
     * {@link #status}) and messages. Stops at a cause seen already, so that a cyclic chain ends.
     *
     * @param failure the failure, may be {@code null}
     * @return the chain; empty for {@code null}
     */
    public static List<Throwable> causes(@Nullable Throwable failure) {
        List<Throwable> chain = new ArrayList<>();
        Set<Throwable> seen = Collections.newSetFromMap(new IdentityHashMap<>());
        for (Throwable t = failure; t != null && seen.add(t); t = t.getCause()) {
            chain.add(t);
        }
        return chain;
    }

    /**
     * True for a 409 version conflict.
     *
     * @param failure the failure to classify, may be {@code null}
     * @return whether {@link #status} is {@value #CONFLICT}
     */
    public static boolean isVersionConflict(@Nullable Throwable failure) {
        return status(failure) == CONFLICT;
    }

    /**
     * True for a 429 rejection (full queue, circuit breaker): retrying later usually succeeds.
     *
     * @param failure the failure to classify, may be {@code null}
     * @return whether {@link #status} is {@value #TOO_MANY_REQUESTS}
     */
    public static boolean isRejected(@Nullable Throwable failure) {
        return status(failure) == TOO_MANY_REQUESTS;
    }

    /**
     * {@link #isVersionConflict} as a retry predicate.
     *
     * @return a predicate accepting version conflicts
     */
    public static Predicate<Throwable> versionConflict() {
        return Failures::isVersionConflict;
    }

    /**
     * {@link #isRejected} as a retry predicate.
     *
     * @return a predicate accepting rejections
     */
    public static Predicate<Throwable> rejected() {
        return Failures::isRejected;
    }

    /**
     * An exception standing for a failed item of a bulk response (which has a status and an error but
     * no exception), so that the same retry predicates judge single requests and bulk items.
     *
     * @param status the item's HTTP status
     * @param error the item's error, or {@code null} for a generic cause of type {@code unknown}
     * @return an exception whose {@link #status} is {@code status}; it is returned, not thrown
     */
    public static ElasticsearchException ofBulkItem(int status, @Nullable ErrorCause error) {
        ErrorCause cause =
                error != null ? error : ErrorCause.of(e -> e.type("unknown").reason("status " + status));
        return new ElasticsearchException(
                "bulk", ErrorResponse.of(r -> r.status(status).error(cause)));
    }

    /**
     * The HTTP status that belongs to an error reported without one, such as the failure of one
     * document of a multi-get: 404 for a missing index, 403 for a refused privilege, 401 for failed
     * authentication, 429 for a rejection, 409 for a version conflict, else 500.
     *
     * @param error the error, or {@code null} (500)
     * @return the HTTP status Elasticsearch answers that error with
     */
    public static int statusOf(@Nullable ErrorCause error) {
        if (error == null || error.type() == null) {
            return 500;
        }
        return switch (error.type()) {
            case "index_not_found_exception" -> 404;
            case "security_exception" ->
                error.reason() != null && error.reason().startsWith("unable to authenticate") ? 401 : 403;
            case "es_rejected_execution_exception", "circuit_breaking_exception" -> TOO_MANY_REQUESTS;
            case "version_conflict_engine_exception" -> CONFLICT;
            default -> 500;
        };
    }
}
