package io.github.esrel.doc;

import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * What Elasticsearch keeps beside a document's source: its concrete index, id, routing value, sequence number,
 * primary term and version. A {@link DocumentConverter} receives it with every source it reads, so that a document
 * model which holds these in properties of its own (Spring Data's {@code @Id}, {@code @Version} and
 * {@code SeqNoPrimaryTerm}) can fill them.
 *
 * @param index the concrete index the document is in
 * @param id the document id
 * @param routing the routing value it was written with, or {@code null} (routed by its id)
 * @param seqNo {@code _seq_no}, or {@value #UNKNOWN} when the read did not ask for it (a search hit)
 * @param primaryTerm {@code _primary_term}, or {@value #UNKNOWN}
 * @param version {@code _version}, or {@value #UNKNOWN}
 */
public record DocMeta(String index, String id, @Nullable String routing, long seqNo, long primaryTerm, long version) {

    /** The value of {@link #seqNo}, {@link #primaryTerm} and {@link #version} when they are not known. */
    public static final long UNKNOWN = -1;

    /**
     * Creates the metadata of one document.
     *
     * @throws NullPointerException if {@code index} or {@code id} is {@code null}
     */
    public DocMeta {
        Objects.requireNonNull(index, "index cannot be null");
        Objects.requireNonNull(id, "id cannot be null");
    }

    /**
     * The metadata of a document whose versions are not known (a search hit, a document about to be created).
     *
     * @param index the index the document is in
     * @param id the document id
     * @param routing its routing value, or {@code null}
     * @return the metadata, with {@link #UNKNOWN} versions
     */
    public static DocMeta of(String index, String id, @Nullable String routing) {
        return new DocMeta(index, id, routing, UNKNOWN, UNKNOWN, UNKNOWN);
    }

    /**
     * Whether the sequence number and primary term are known: a realtime read or a write returned them.
     *
     * @return true when both are
     */
    public boolean hasSeqNo() {
        return seqNo >= 0 && primaryTerm > 0;
    }
}
