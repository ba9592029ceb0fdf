package io.github.esrel.occ;

import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * A document as read (or as just written), with what a later conditional write needs: its sequence
 * number and primary term (Elasticsearch's compare-and-set token, sent as {@code if_seq_no} /
 * {@code if_primary_term}) and its routing. {@code version} is informational: with internal
 * versioning it counts writes, but conditional writes use the seq_no/primary_term pair.
 *
 * @param index the concrete index the document lives in
 * @param id the document id
 * @param routing the routing value it was written with, or {@code null} (routed by id)
 * @param value the source mapped to the caller's type
 * @param seqNo {@code _seq_no}
 * @param primaryTerm {@code _primary_term}
 * @param version {@code _version}
 * @param <T> the caller's document type
 */
public record Versioned<T>(
        String index, String id, @Nullable String routing, T value, long seqNo, long primaryTerm, long version) {

    /**
     * Creates a versioned document. Normally obtained from {@link Occ#get} or {@link Outcome#versioned()};
     * when built by hand, {@code seqNo} and {@code primaryTerm} must be values Elasticsearch returned, or
     * conditional writes based on it conflict.
     *
     * @throws NullPointerException if {@code index} or {@code id} is {@code null}
     */
    public Versioned {
        Objects.requireNonNull(index, "index cannot be null");
        Objects.requireNonNull(id, "id cannot be null");
    }
}
