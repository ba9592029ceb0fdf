package io.github.esrel.join;

import java.util.List;
import java.util.Objects;

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

    public Group {
        Objects.requireNonNull(key, "key cannot be null");
        hits = List.copyOf(hits);
    }

    /** The group's documents' values, in order. */
    public List<T> values() {
        return hits.stream().map(Doc::value).toList();
    }
}
