package io.github.esrel.occ;

import io.github.esrel.retry.Attempts;
import io.github.esrel.retry.StopReason;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;
import org.jspecify.annotations.Nullable;

/**
 * One item of a {@link BulkUpdate}, as it was added (its document, and its function or its upsert's), and its progress
 * through the {@link BulkJob} that runs it: its attempts, conflicts and last value, and the outcome it ends with.
 *
 * @param <T> the caller's document type
 */
final class BulkItem<T> {
    final int position;
    final String index;
    final String id;
    final @Nullable String routing;
    final @Nullable Supplier<T> initial;
    final UnaryOperator<T> fn;
    // Set when the item's job starts it.
    @SuppressWarnings("NullAway.Init")
    Attempts attempts;

    long start;
    int conflicts;

    @Nullable
    T last;
    /** Its function made the document (an upsert of a missing one) in the write being decided. */
    boolean created;

    BulkItem(
            int position,
            String index,
            String id,
            @Nullable String routing,
            @Nullable Supplier<T> initial,
            UnaryOperator<T> fn) {
        this.position = position;
        this.index = index;
        this.id = id;
        this.routing = routing;
        this.initial = initial;
        this.fn = fn;
    }

    /** This item's outcome so far: its attempts, conflicts and time. */
    Outcome.Builder<T> outcome(Outcome.Status status) {
        return Outcome.<T>builder(index, id, routing, status)
                .operation(Outcome.Operation.BULK)
                .attempts(attempts.attempt(), conflicts)
                .since(start);
    }

    Outcome<T> gaveUp(StopReason reason) {
        return outcome(Outcome.Status.CONFLICT).value(last).stopReason(reason).build();
    }

    Outcome<T> failed(@Nullable String error) {
        return outcome(Outcome.Status.FAILED)
                .value(last)
                .stopReason(attempts.stopReason())
                .error(error)
                .build();
    }

    /** The item's write was sent and its fate is not known ({@code cause}); it is not sent again. */
    Outcome<T> unknown(Exception cause) {
        return outcome(Outcome.Status.UNKNOWN)
                .value(last)
                .error(Errors.unknown("write", cause))
                .cause(cause)
                .build();
    }
}
