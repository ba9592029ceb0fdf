package io.github.esrel.routing;

import io.github.esrel.doc.DocRef;
import io.github.esrel.internal.RestCall;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * One {@code _id} that lives more than once in one index: written with two (or more) routing values that
 * lead to different shards (seed 002). Elasticsearch keeps ids unique per shard, not per index, so each copy is
 * a document of its own, and every get, update or delete by id sees only the copy on the shard its routing
 * value (or, without one, the id) leads to.
 *
 * <p><b>Removing a stray copy.</b> Delete it by id <em>with the routing value of that copy</em>: the request
 * goes to that copy's shard only, and the other copies stay. {@link Copy#deleteRequest()} gives the REST
 * request, conditional on the {@code _seq_no} and {@code _primary_term} the scan read, so that a copy changed
 * since is not deleted (409); {@link Copy#doc()} is the same document for a Java client:
 * <pre>{@code
 * DELETE /orders/_doc/123?routing=xyz&if_seq_no=7&if_primary_term=1
 * es.delete(d -> d.index(c.doc().index()).id(c.doc().id()).routing(c.doc().routing())
 *     .ifSeqNo(c.seqNo()).ifPrimaryTerm(c.primaryTerm()));
 * }</pre>
 * Which copy is the stray one is the caller's decision: esrel cannot know which routing value the application
 * means to use for this id (usually the one its reads pass; the copy with the higher {@code _seq_no} on its
 * shard is not necessarily the newer write, since sequence numbers are per shard).
 *
 * @param index the index the copies are in
 * @param id the document id
 * @param copies every copy found, at least two, ordered by shard
 */
public record DuplicateId(String index, String id, List<Copy> copies) {

    /**
     * Checks and copies the values.
     *
     * @param index the index the copies are in, not {@code null}
     * @param id the document id, not {@code null}
     * @param copies every copy, not {@code null}; copied
     * @throws NullPointerException if an argument is {@code null}
     */
    public DuplicateId {
        Objects.requireNonNull(index, "index cannot be null");
        Objects.requireNonNull(id, "id cannot be null");
        copies = List.copyOf(copies);
    }

    /**
     * The routing values of the copies, in the order of {@link #copies()}.
     *
     * @return one entry per copy; {@code null} for a copy written without routing (routed by its id)
     */
    public @Nullable List<String> routings() {
        List<String> r = new ArrayList<>(copies.size());
        copies.forEach(c -> r.add(c.doc().routing()));
        return r;
    }

    /**
     * The shards of the copies, in the order of {@link #copies()}.
     *
     * @return one shard number per copy, all different
     */
    public List<Integer> shards() {
        List<Integer> s = new ArrayList<>(copies.size());
        copies.forEach(c -> s.add(c.shard()));
        return s;
    }

    /**
     * The copy written with this routing value.
     *
     * @param routing the routing value, or {@code null} for the copy routed by its id
     * @return the copy, or {@code null} if none has that routing value
     */
    public @Nullable Copy copyWithRouting(String routing) {
        String r = routing == null || routing.isEmpty() ? null : routing;
        for (Copy c : copies) {
            if (Objects.equals(c.doc().routing(), r)) {
                return c;
            }
        }
        return null;
    }

    /**
     * One copy of the id: where it is and the version the scan read.
     *
     * @param doc the copy as a document reference: the index, the id and the routing value it was written with
     *     ({@code null} routing when it was routed by its id); pass it to esrel calls or use its parts to delete it
     * @param shard the shard that holds it, as Elasticsearch reported it ({@code _shard} of the hit)
     * @param seqNo its {@code _seq_no} (per shard)
     * @param primaryTerm its {@code _primary_term}
     */
    public record Copy(DocRef doc, int shard, long seqNo, long primaryTerm) {

        /**
         * Checks the values.
         *
         * @param doc the copy, not {@code null}, naming its index
         * @param shard the shard, at least 0
         * @param seqNo the sequence number
         * @param primaryTerm the primary term
         * @throws NullPointerException if {@code doc} is {@code null}
         * @throws IllegalArgumentException if {@code doc} names no index or {@code shard} is negative
         */
        public Copy {
            Objects.requireNonNull(doc, "doc cannot be null");
            doc.requireIndex();
            if (shard < 0) {
                throw new IllegalArgumentException("shard must not be negative, got " + shard);
            }
        }

        /**
         * The routing value the copy was written with.
         *
         * @return the routing value, or {@code null} when it was routed by its id
         */
        public @Nullable String routing() {
            return doc.routing();
        }

        /**
         * The REST request that deletes exactly this copy: by id, with this copy's routing value (so it goes to
         * this copy's shard and nowhere else), and only if the copy is still the version the scan read.
         *
         * @return for example {@code DELETE /orders/_doc/123?routing=xyz&if_seq_no=7&if_primary_term=1}, with the
         *     index, id and routing URL-encoded
         */
        public String deleteRequest() {
            // A copy names its index (the constructor checks).
            return "DELETE /" + RestCall.segment(Objects.requireNonNull(doc.index())) + "/_doc/"
                    + RestCall.segment(doc.id()) + "?"
                    + (doc.routing() == null ? "" : "routing=" + RestCall.segment(doc.routing()) + "&")
                    + "if_seq_no=" + seqNo + "&if_primary_term=" + primaryTerm;
        }
    }
}
