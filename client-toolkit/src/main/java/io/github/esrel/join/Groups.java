package io.github.esrel.join;

import java.time.Duration;
import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * The groups a field-collapsing search returned, how it got them, and whether they are exact.
 * Immutable.
 *
 * @param groups the groups, best score first
 * @param form how Elasticsearch was asked
 * @param totalHits documents matching the query that have a group value, {@code -1} when unknown
 * @param exact {@code false} when the groups may be incomplete (the terms form met more distinct
 *     values than {@link Grouping.Builder#maxBuckets(int)}); {@link #note()} says why
 * @param note why the result is not exact or how the form was chosen, or {@code null}
 * @param requests one entry per round trip, in order
 * @param took wall time
 * @param <T> the document type
 */
public record Groups<T>(
        List<Group<T>> groups,
        Form form,
        long totalHits,
        boolean exact,
        @Nullable String note,
        List<String> requests,
        Duration took) {

    /** How the groups were computed. */
    public enum Form {
        /** {@code collapse} on the field with {@code inner_hits}: one search, groups paged by the server. */
        COLLAPSE,
        /**
         * The seed's form: a {@code terms} aggregation ordered by {@code max(_score)} (a painless script)
         * with {@code top_hits} per bucket. Needs the {@code lang-painless} module.
         */
        TERMS_SCRIPTED_MAX_SCORE,
        /**
         * A {@code terms} aggregation over every group with {@code top_hits} per bucket, ordered by each
         * bucket's best score by esrel: the seed's form for clusters without scripting.
         */
        TERMS_CLIENT_ORDERED
    }

    /**
     * Checks the form and copies {@code groups} and {@code requests}.
     *
     * @throws NullPointerException if {@code groups}, {@code form} or {@code requests} is {@code null}
     */
    public Groups {
        groups = List.copyOf(groups);
        Objects.requireNonNull(form, "form cannot be null");
        requests = List.copyOf(requests);
    }

    /**
     * Returns how many requests the grouping sent to Elasticsearch.
     *
     * @return the number of round trips, the size of {@link #requests()}
     */
    public int roundTrips() {
        return requests.size();
    }

    /**
     * Returns the group keys.
     *
     * @return each group's {@link Group#key()}, in the order of {@link #groups()} (best score first)
     */
    public List<String> keys() {
        return groups.stream().map(Group::key).toList();
    }
}
