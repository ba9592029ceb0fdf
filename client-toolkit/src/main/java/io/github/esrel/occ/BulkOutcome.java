package io.github.esrel.occ;

import java.time.Duration;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;

/**
 * What a {@link BulkUpdate} did: one {@link Outcome} per item, in the order the items were added.
 *
 * @param items the outcome of each item, in request order
 * @param rounds rounds run (1 when nothing conflicted)
 * @param took wall time of the whole job, backoff included
 * @param <T> the caller's document type
 */
public record BulkOutcome<T>(List<Outcome<T>> items, int rounds, Duration took) {

    /**
     * Creates an outcome; {@code items} is copied into an unmodifiable list.
     *
     * @throws NullPointerException if {@code items} is {@code null} or holds a {@code null}
     */
    public BulkOutcome {
        items = List.copyOf(items);
    }

    /**
     * The outcome of the i-th item added.
     *
     * @param i the position of the item in the order it was added, from 0
     * @return the outcome of that item
     * @throws IndexOutOfBoundsException if {@code i} is negative or not less than {@code items().size()}
     */
    public Outcome<T> item(int i) {
        return items.get(i);
    }

    /**
     * Counts the items that ended with {@code status}.
     *
     * @param status the status to count
     * @return the number of items with that status; 0 when none (or {@code status} is {@code null})
     */
    public long count(Outcome.Status status) {
        return items.stream().filter(o -> o.status() == status).count();
    }

    /**
     * Items counted per status.
     *
     * @return a new, modifiable map in {@link Outcome.Status} order, holding only the statuses that occur
     */
    public Map<Outcome.Status, Long> counts() {
        Map<Outcome.Status, Long> counts = new EnumMap<>(Outcome.Status.class);
        items.forEach(o -> counts.merge(o.status(), 1L, Long::sum));
        return counts;
    }

    /**
     * Version conflicts met by all items together.
     *
     * @return the sum of {@link Outcome#conflicts()} over all items
     */
    public long conflicts() {
        return items.stream().mapToLong(Outcome::conflicts).sum();
    }

    /**
     * True when no item gave up, failed, or has an unknown outcome.
     *
     * @return false if any item has status {@link Outcome.Status#CONFLICT}, {@link Outcome.Status#FAILED} or
     *     {@link Outcome.Status#UNKNOWN}
     */
    public boolean complete() {
        return items.stream()
                .noneMatch(o -> o.status() == Outcome.Status.CONFLICT
                        || o.status() == Outcome.Status.FAILED
                        || o.status() == Outcome.Status.UNKNOWN);
    }

    /**
     * This outcome, if {@link #complete()}.
     *
     * @return this outcome, unchanged
     * @throws OccConflictException for the first item that gave up on conflicts, if any
     * @throws OccUnknownOutcomeException for the first item whose outcome is unknown, if none gave up
     * @throws OccException for the first item that failed otherwise
     */
    public BulkOutcome<T> orThrow() {
        items.stream().filter(Outcome::gaveUp).findFirst().ifPresent(Outcome::orThrow);
        items.stream().filter(Outcome::unknown).findFirst().ifPresent(Outcome::orThrow);
        items.stream()
                .filter(o -> o.status() == Outcome.Status.FAILED)
                .findFirst()
                .ifPresent(Outcome::orThrow);
        return this;
    }

    @Override
    public String toString() {
        return "BulkOutcome{items=" + items.size() + ", rounds=" + rounds + ", took=" + took.toMillis() + "ms, "
                + counts() + ", conflicts=" + conflicts() + '}';
    }
}
