package io.github.esrel.join;

import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * One group of a field-collapsing search: the documents sharing one value of the group field.
 *
 * @param key the group field's value (numbers as plain strings: {@code "7"}, {@code "1.5"})
 * @param bestScore the best score in the group, which orders the groups
 * @param total how many documents of the group match the query
 * @param hits the group's top documents, in the per-group sort (by score by default)
 * @param <T> the document type
 */
public record Group<T>(String key, double bestScore, long total, List<Doc<T>> hits) {

    /**
     * Checks the key and copies {@code hits}.
     *
     * @throws NullPointerException if {@code key} or {@code hits} is {@code null}
     */
    public Group {
        Objects.requireNonNull(key, "key cannot be null");
        hits = List.copyOf(hits);
    }

    /**
     * Returns the values of the group's documents.
     *
     * @return the {@link Doc#value()} of each hit, in the per-group sort order; an element is
     *     {@code null} when that source was not fetched
     */
    public @Nullable List<T> values() {
        return hits.stream().map(Doc::value).toList();
    }
}
