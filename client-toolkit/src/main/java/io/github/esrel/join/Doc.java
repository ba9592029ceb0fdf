package io.github.esrel.join;

import co.elastic.clients.elasticsearch._types.FieldValue;
import co.elastic.clients.elasticsearch.core.search.Hit;
import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * One document a join or a grouping returned: where it lives, how it scored and sorted, and its
 * source mapped to the caller's type.
 *
 * @param index the concrete index the document was read from
 * @param id the document's {@code _id}
 * @param score its score, or {@code null} when the search did not compute one
 * @param sort its sort values ({@code hit.sort}), empty when the search was not sorted explicitly
 * @param value the source mapped to the caller's type; {@code null} when the source was not fetched
 * @param <T> the caller's document type
 */
public record Doc<T>(
        String index,
        String id,
        @Nullable Double score,
        List<FieldValue> sort,
        @Nullable T value) {

    /**
     * Checks the components and copies {@code sort}.
     *
     * @throws NullPointerException if {@code index} or {@code id} is {@code null}
     */
    public Doc {
        Objects.requireNonNull(index, "index cannot be null");
        Objects.requireNonNull(id, "id cannot be null");
        sort = sort == null ? List.of() : List.copyOf(sort);
    }

    /** A hit whose source the client already mapped to {@code T}. */
    static <T> Doc<T> of(Hit<T> hit) {
        return new Doc<>(hit.index(), hit.id(), hit.score(), hit.sort(), hit.source());
    }

    /**
     * Names the document for logs and messages.
     *
     * @return {@code [index][id]}, for example {@code [orders-2024][42]}
     */
    public String ref() {
        return "[" + index + "][" + id + "]";
    }
}
