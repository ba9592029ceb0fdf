package io.github.esrel.occ;

import co.elastic.clients.elasticsearch._types.ElasticsearchException;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.github.esrel.doc.DocRef;
import io.github.esrel.retry.Attempts;
import io.github.esrel.retry.RetryPolicy;
import io.github.esrel.retry.StopReason;
import java.util.Objects;
import java.util.function.Predicate;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;
import org.jspecify.annotations.Nullable;

/**
 * One caller's call on its way through attempts: its input, its attempts under the retry policy, the verdict
 * of its current attempt, and its result, an {@link Outcome} or an exception for the caller's thread. Only
 * {@link OccCalls} reads and writes it.
 */
final class OccCall<T> extends WriteCombiner.Op {

    /** The document, index as given: calls of equal documents are combined. */
    final DocRef doc;

    final Class<T> type;
    final @Nullable Supplier<T> initial;
    final @Nullable UnaryOperator<T> fn;
    final @Nullable Predicate<? super T> deleteIf;
    final Attempts attempts;
    final long start = System.nanoTime();
    int conflicts;
    boolean routingChecked;
    /** The last value computed (or, for a delete, read), reported when the call gives up. */
    @Nullable
    T last;
    /** The failure of the last attempt, if it is to be retried. */
    @Nullable
    ElasticsearchException lastFailure;

    // The current attempt's verdict, turned into the outcome once the attempt's write is known.
    Outcome.@Nullable Status status;
    /** True when an earlier call of the same attempt changed the value this call's function saw. */
    boolean afterChange;
    /** Why this call's function (or mapping) failed in the current attempt; it ends so once the attempt is decided. */
    @Nullable
    RuntimeException attemptFailure;

    private @Nullable Outcome<T> outcome;
    private @Nullable RuntimeException failure;

    OccCall(
            DocRef doc,
            Class<T> type,
            @Nullable Supplier<T> initial,
            @Nullable UnaryOperator<T> fn,
            @Nullable Predicate<? super T> deleteIf,
            RetryPolicy policy,
            boolean routingCheck) {
        super(deleteIf != null);
        this.doc = doc;
        this.type = Objects.requireNonNull(type, "type cannot be null");
        this.initial = initial;
        this.fn = fn;
        this.deleteIf = deleteIf;
        this.attempts = policy.attempts(); // the call's deadline counts from now
        this.routingChecked = !routingCheck; // nothing to check when the check is off
    }

    String index() {
        return doc.requireIndex(); // checked when the call was made
    }

    String id() {
        return doc.id();
    }

    @Nullable
    String routing() {
        return doc.routing();
    }

    Outcome.Operation operation() {
        return deleteIf != null
                ? Outcome.Operation.DELETE_IF
                : initial != null ? Outcome.Operation.UPSERT : Outcome.Operation.UPDATE;
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

    /**
     * The write that carried the call is applied, as the write log shows, although its answer was lost or a conflict
     * (its own replay): the seq_no it got is not known, later writes may have followed.
     */
    void appliedUnseen(@Nullable Versioned<ObjectNode> read) {
        Outcome.Status decided = Objects.requireNonNull(status, "a decided attempt has a verdict");
        Outcome.Status verdict =
                decided == Outcome.Status.NOOP && !afterChange && read != null ? Outcome.Status.NOOP : decided;
        done(outcome(index(), verdict)
                .value(last)
                .error(ConditionalWrite.APPLIED_UNSEEN)
                .build());
    }

    /** The write that carried the call was sent and its fate is not known ({@code e}): not retried. */
    void unknown(Exception e) {
        done(outcome(index(), Outcome.Status.UNKNOWN)
                .value(last)
                .error(Errors.unknown(what().replace(" of", ""), e))
                .cause(e)
                .build());
    }

    /**
     * Ends a call that may not try again: a conflict becomes a {@code CONFLICT} outcome, a rejection (or no attempt
     * at all, when interrupted in the queue) likewise or the exception the caller gets today.
     */
    void stop(StopReason reason) {
        ElasticsearchException last = lastFailure;
        if (last != null && last.status() != 409) {
            OccException e = Errors.translate(what(), index(), id(), routing(), last);
            if (last.status() == 429) {
                e = new OccException(
                        e.getMessage() + " (rejected " + attempts.attempt() + " time(s); " + reason + ")", 429, last);
            }
            fail(e);
            return;
        }
        done(outcome(index(), Outcome.Status.CONFLICT)
                .value(this.last)
                .stopReason(reason)
                .build());
    }

    /**
     * The result for the caller's thread; a call withdrawn from the queue by an interrupt ends as {@link #stop
     * stopped} with {@link StopReason#INTERRUPTED}.
     *
     * @throws RuntimeException the failure of the call (a function's own exception unchanged), or what a combined
     *     attempt failed with
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

    /** The outcome of the call so far: its attempts, conflicts and time. */
    Outcome.Builder<T> outcome(String concreteIndex, Outcome.Status status) {
        return Outcome.<T>builder(concreteIndex, id(), routing(), status)
                .operation(operation())
                .attempts(attempts.attempt(), conflicts)
                .since(start);
    }
}
