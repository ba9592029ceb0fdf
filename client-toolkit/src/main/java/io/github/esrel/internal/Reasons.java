package io.github.esrel.internal;

import co.elastic.clients.elasticsearch._types.ElasticsearchException;
import co.elastic.clients.elasticsearch._types.ErrorCause;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Set;

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
    public static String of(ErrorCause error) {
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
     * A failure and its causes, outermost first: the one walk of a cause chain for esrel's messages and
     * classifications. Stops at a cause seen already, so that a cyclic chain ends.
     *
     * @param failure the failure, may be {@code null}
     * @return the chain; empty for {@code null}
     */
    public static List<Throwable> causes(Throwable failure) {
        List<Throwable> chain = new ArrayList<>();
        Set<Throwable> seen = Collections.newSetFromMap(new IdentityHashMap<>());
        for (Throwable t = failure; t != null && seen.add(t); t = t.getCause()) {
            chain.add(t);
        }
        return chain;
    }

    /**
     * The innermost cause of a failure: what went wrong first, often with the plainest message.
     *
     * @param failure the failure
     * @return the last of {@link #causes(Throwable)}; {@code failure} itself when it has no cause
     */
    public static Throwable root(Throwable failure) {
        List<Throwable> chain = causes(failure);
        return chain.get(chain.size() - 1);
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
