package io.github.esrel.view;

import co.elastic.clients.elasticsearch.core.get.GetResult;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.github.esrel.doc.DocMeta;
import io.github.esrel.doc.DocumentConverter;
import io.github.esrel.internal.JsonTrees;
import io.github.esrel.occ.Versioned;
import java.util.List;
import java.util.Objects;
import java.util.function.BiFunction;
import org.jspecify.annotations.Nullable;

/**
 * The view document of a snapshot, and the JSON conversions around it: pure, no requests, so that what a
 * view looks like can be tested without a cluster. It also owns the bookkeeping field, the only place
 * where the layout below is written and read back:
 *
 * <pre>{@code
 * "esrel": { "view": "photo-user", "version": 99,
 *            "source": { "id": "p1", "seq_no": 12, "primary_term": 1, "routing": "r1" },
 *            "parent": { "id": "u1", "found": true, "seq_no": 40, "primary_term": 1 } }
 * }</pre>
 *
 * ({@code routing} only for a routed source; the parent's {@code seq_no} and {@code primary_term} only
 * when it was found.)
 *
 * @param <S> the source type
 * @param <P> the parent type
 */
final class ViewComposer<S, P> {

    /** One parent field the default composition copies into the view. */
    record Copy(String from, String to) {
        Copy {
            Objects.requireNonNull(from, "from cannot be null");
            Objects.requireNonNull(to, "to cannot be null");
        }
    }

    private final String view;
    private final String metaField;
    private final Class<S> sourceType;
    private final Class<P> parentType;
    private final List<Copy> copies;
    private final @Nullable BiFunction<S, P, ?> function;
    private final DocumentConverter converter;
    /** The indices sources and parents are read from, for the metadata the converter gets. */
    private final String sourceIndex;

    private final String parentIndex;

    /**
     * @param view the view's name, stored in the bookkeeping
     * @param function the caller's composition, or {@code null} for the default one ({@code copies})
     * @param converter maps sources and parents to their types, and the composition to a view document
     * @throws IllegalArgumentException if there is neither a copy nor a function, or both
     */
    ViewComposer(
            String view,
            String metaField,
            Class<S> sourceType,
            Class<P> parentType,
            List<Copy> copies,
            @Nullable BiFunction<S, P, ?> function,
            DocumentConverter converter,
            String sourceIndex,
            String parentIndex) {
        this.view = Objects.requireNonNull(view, "view cannot be null");
        this.metaField = Objects.requireNonNull(metaField, "metaField cannot be null");
        this.sourceType = Objects.requireNonNull(sourceType, "sourceType cannot be null");
        this.parentType = Objects.requireNonNull(parentType, "parentType cannot be null");
        this.copies = List.copyOf(copies);
        this.function = function;
        if (function == null && this.copies.isEmpty()) {
            throw new IllegalArgumentException("view [" + view
                    + "] copies nothing from the parent: add copyParent(from, to)" + " or a compose(...) function");
        }
        if (function != null && !this.copies.isEmpty()) {
            throw new IllegalArgumentException(
                    "view [" + view + "]: copyParent(...) applies to the default composition only;"
                            + " with compose(...) copy the parent's fields in the function");
        }
        this.converter = Objects.requireNonNull(converter, "converter cannot be null");
        this.sourceIndex = Objects.requireNonNull(sourceIndex, "sourceIndex cannot be null");
        this.parentIndex = Objects.requireNonNull(parentIndex, "parentIndex cannot be null");
    }

    /**
     * The whole view document of a snapshot whose source exists, with its bookkeeping.
     *
     * @throws IllegalArgumentException if the document cannot be composed or collides with the bookkeeping
     * @throws NullPointerException if the caller's function returned {@code null}
     */
    ObjectNode compose(Rebuilder.Snap s, long version) {
        ObjectNode source = Objects.requireNonNull(s.source(), "a view is composed of a source that exists");
        BiFunction<S, P, ?> fn = function;
        ObjectNode doc = fn == null ? copied(source, s.parent()) : composed(fn, source, s);
        if (doc.has(metaField)) {
            throw new IllegalArgumentException("the view document must not have a field [" + metaField
                    + "]: it holds the view's bookkeeping (change it with metaField(...))");
        }
        doc.set(metaField, bookkeeping(s, version));
        return doc;
    }

    /** The default composition: the source, with each copy set from the parent or removed where it has none. */
    private ObjectNode copied(ObjectNode source, @Nullable ObjectNode parent) {
        ObjectNode doc = source.deepCopy();
        for (Copy c : copies) {
            JsonNode value = parent == null ? null : JsonTrees.get(parent, c.from());
            if (value == null || value.isNull()) {
                // Removed, not kept: the source may carry a stale copy of its own (a view is rebuilt whole).
                JsonTrees.remove(doc, c.to());
            } else {
                JsonTrees.set(doc, c.to(), value);
            }
        }
        return doc;
    }

    private ObjectNode composed(BiFunction<S, P, ?> function, ObjectNode sourceTree, Rebuilder.Snap s) {
        S source = convert(
                sourceTree, sourceType, meta(sourceIndex, s.ref().id(), s.ref().routing(), s));
        ObjectNode parentTree = s.parent();
        P parent = parentTree == null
                ? null
                : convert(
                        parentTree,
                        parentType,
                        DocMeta.of(
                                parentIndex,
                                Objects.requireNonNull(s.stamp().parentId(), "a parent read is named by its id"),
                                null));
        Object out = Objects.requireNonNull(function.apply(source, parent), "the compose function returned null");
        try {
            return converter.write(out);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(
                    "the compose function's value cannot be a view document: " + e.getMessage(), e);
        }
    }

    private static DocMeta meta(String index, String id, @Nullable String routing, Rebuilder.Snap s) {
        return new DocMeta(index, id, routing, s.stamp().seqNo(), s.stamp().primaryTerm(), DocMeta.UNKNOWN);
    }

    private ObjectNode bookkeeping(Rebuilder.Snap s, long version) {
        ObjectNode meta =
                JsonNodeFactory.instance.objectNode().put("view", view).put("version", version);
        ObjectNode src = meta.putObject("source")
                .put("id", s.ref().id())
                .put("seq_no", s.stamp().seqNo())
                .put("primary_term", s.stamp().primaryTerm());
        if (s.ref().routing() != null) {
            src.put("routing", s.ref().routing());
        }
        ObjectNode par = meta.putObject("parent");
        par.put("id", s.stamp().parentId()).put("found", s.stamp().parentFound());
        if (s.stamp().parentFound()) {
            par.put("seq_no", s.stamp().parentSeqNo())
                    .put("primary_term", s.stamp().parentPrimaryTerm());
        }
        return meta;
    }

    /** The bookkeeping field, for reads that need only it. */
    String metaField() {
        return metaField;
    }

    /** Where a stored view keeps its source's routing, for reads that need only that. */
    String routingPath() {
        return metaField + ".source.routing";
    }

    /** The source a stored view (or the part of it read through {@link #routingPath()}) was built from. */
    Rebuilder.Ref sourceOf(String viewId, ObjectNode storedView) {
        return new Rebuilder.Ref(viewId, JsonTrees.idText(JsonTrees.get(storedView, routingPath())));
    }

    /** The versions a stored view was built from, or {@code null} without bookkeeping. */
    Rebuilder.@Nullable Stamp builtFrom(ObjectNode storedView) {
        return stampOf(storedView.get(metaField));
    }

    /** A stored view as handed to callers: a copy without the bookkeeping, which goes into the other fields. */
    ViewDoc viewDoc(String id, long version, ObjectNode storedView) {
        ObjectNode doc = storedView.deepCopy();
        Rebuilder.Stamp st = stampOf(doc.remove(metaField));
        return new ViewDoc(
                id,
                version,
                doc,
                st == null ? -1 : st.seqNo(),
                st == null ? null : st.parentId(),
                st == null ? -1 : st.parentSeqNo());
    }

    /**
     * A source document as read by a multi-get, mapped to the source type.
     *
     * @throws IllegalArgumentException if it cannot be mapped
     */
    Versioned<S> source(GetResult<ObjectNode> read, @Nullable String routing) {
        return new Versioned<>(
                read.index(),
                read.id(),
                routing,
                convert(
                        read.source(),
                        sourceType,
                        new DocMeta(
                                read.index(),
                                read.id(),
                                routing,
                                Rebuilder.seq(read.seqNo()),
                                Rebuilder.seq(read.primaryTerm()),
                                Rebuilder.seq(read.version()))),
                Rebuilder.seq(read.seqNo()),
                Rebuilder.seq(read.primaryTerm()),
                Rebuilder.seq(read.version()));
    }

    /** The versions recorded in a bookkeeping field, or {@code null} when there is none. */
    static Rebuilder.@Nullable Stamp stampOf(@Nullable JsonNode meta) {
        if (meta == null || !meta.isObject()) {
            return null;
        }
        JsonNode s = meta.path("source");
        JsonNode p = meta.path("parent");
        boolean pFound = p.path("found").asBoolean(false);
        return new Rebuilder.Stamp(
                true,
                JsonTrees.longOr(s.get("seq_no"), -1),
                JsonTrees.longOr(s.get("primary_term"), -1),
                p.path("id").isNull() || p.path("id").isMissingNode()
                        ? null
                        : p.path("id").asText(),
                pFound,
                pFound ? JsonTrees.longOr(p.get("seq_no"), -1) : -1,
                pFound ? JsonTrees.longOr(p.get("primary_term"), -1) : -1);
    }

    @SuppressWarnings("unchecked")
    private <T> T convert(ObjectNode tree, Class<T> type, DocMeta meta) {
        if (type == ObjectNode.class || type == JsonNode.class) {
            return (T) tree; // no round trip through Jackson for callers who work on trees
        }
        try {
            return converter.read(tree, type, meta);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("cannot map a document to " + type.getName() + ": " + e.getMessage(), e);
        }
    }
}
