package io.github.esrel.occ;

import co.elastic.clients.elasticsearch._types.ElasticsearchException;
import io.github.esrel.retry.Attempts;
import io.github.esrel.retry.StopReason;
import java.util.Objects;
import java.util.function.Predicate;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;

/**
 * One caller's read-modify-write ({@code update}, {@code upsert} or {@code deleteIf}) on its way through
 * attempts, alone or combined with other callers' in a {@link WriteCombiner}: its input, its own attempts
 * under the retry policy, and its result, an {@link Outcome} or an exception for the caller's thread.
 *
 * @param <T> the caller's document type
 */
final class OccCall<T> extends WriteCombiner.Op {

    /** The document a call is for: calls with equal keys are combined. */
    record Key(String index, String id, String routing) {}

    final Key key;
    final Class<T> type;
    final Supplier<T> initial;
    final UnaryOperator<T> fn;
    final Predicate<? super T> deleteIf;
    final Attempts attempts;
    final long start = System.nanoTime();
    int conflicts;
    boolean routingChecked;
    /** The last value computed (or, for a delete, read), reported when the call gives up. */
    T last;
    /** The failure of the last attempt, if it is to be retried. */
    ElasticsearchException lastFailure;

    // The current attempt's verdict, turned into the outcome once the attempt's write is known.
    Outcome.Status status;
    /** True when an earlier call of the same attempt changed the value this call's function saw. */
    boolean afterChange;

    private Outcome<T> outcome;
    private RuntimeException failure;

    OccCall(
            Key key,
            Class<T> type,
            Supplier<T> initial,
            UnaryOperator<T> fn,
            Predicate<? super T> deleteIf,
            Attempts attempts,
            boolean routingChecked) {
        super(deleteIf != null);
        this.key = key;
        this.type = Objects.requireNonNull(type, "type cannot be null");
        this.initial = initial;
        this.fn = fn;
        this.deleteIf = deleteIf;
        this.attempts = attempts;
        this.routingChecked = routingChecked;
    }

    String index() {
        return key.index();
    }

    String id() {
        return key.id();
    }

    String routing() {
        return key.routing();
    }

    /** Names the operation in error messages. */
    String what() {
        return deleteIf != null ? "conditional delete of" : initial != null ? "upsert of" : "update of";
    }

    /** The call is over with this outcome. */
    void done(Outcome<T> result) {
        this.outcome = result;
        finish();
    }

    /** The call is over: the caller's thread throws {@code e}. */
    void fail(RuntimeException e) {
        this.failure = e;
        finish();
    }

    /** This call's outcome so far: its attempts, conflicts and time. */
    Outcome.Builder<T> outcome(String concreteIndex, Outcome.Status status) {
        return Outcome.<T>builder(concreteIndex, id(), routing(), status)
                .attempts(attempts.attempt(), conflicts)
                .since(start);
    }

    /**
     * Ends a call that may not try again: a conflict becomes a {@code CONFLICT} outcome, a rejection (or
     * no attempt at all, when interrupted in the queue) likewise or the exception the caller gets today.
     */
    void stop(StopReason reason) {
        if (lastFailure != null && lastFailure.status() != 409) {
            OccException e = Errors.translate(what(), index(), id(), routing(), lastFailure);
            if (lastFailure.status() == 429) {
                e = new OccException(
                        e.getMessage() + " (rejected " + attempts.attempt() + " time(s); " + reason + ")",
                        429,
                        lastFailure);
            }
            fail(e);
            return;
        }
        done(outcome(index(), Outcome.Status.CONFLICT)
                .value(last)
                .stopReason(reason)
                .build());
    }

    /**
     * The result for the caller's thread; a call withdrawn from the queue by an interrupt ends as
     * {@link #stop stopped} with {@link StopReason#INTERRUPTED}.
     *
     * @throws RuntimeException the failure of the call (a function's own exception unchanged), or what a
     *     combined attempt failed with
     */
    Outcome<T> result() {
        Throwable crash = crash();
        if (crash instanceof RuntimeException e) {
            throw e;
        }
        if (crash instanceof Error e) {
            throw e;
        }
        if (crash != null) {
            throw new OccException(
                    what() + " " + Errors.where(index(), id(), routing()) + " failed: " + crash, 0, crash);
        }
        if (withdrawn() && outcome == null && failure == null) {
            stop(StopReason.INTERRUPTED);
        }
        if (failure != null) {
            throw failure;
        }
        return Objects.requireNonNull(outcome, "no outcome");
    }
}
