package io.github.esrel.denorm;

import co.elastic.clients.util.ObjectBuilder;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.Function;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * A denormalized relation, declared once: which child index holds copies of which parent fields, and
 * which child field holds the parent's id (seed 000 §1.2: {@code blogpost.user = {id, name}} copied
 * from {@code user}).
 *
 * <pre>{@code
 * Relation author = Relation.of(r -> r
 *     .name("post-author")
 *     .parentIndex("users")
 *     .childIndex("posts")
 *     .parentIdField("user.id")          // keyword (or numeric) field of the child
 *     .copy("name", "user.name")         // parent field -> child field
 *     .copy("email", "user.email"));
 * }</pre>
 *
 * <h2>The stamp</h2>
 * Every child a propagation brings up to date also gets a <em>stamp</em>: the parent's {@code _seq_no}
 * its copies were taken from, a {@code long} at {@link #stampField()} (default {@code esrel.<name>}).
 * {@code _seq_no} rather than {@code _version} because it never goes back for a document of an index,
 * not even when the document is deleted and created again after {@code index.gc_deletes}. A
 * propagation only reads children whose stamp is below the parent's current seq_no, so
 * <ul>
 *   <li>running it twice rewrites nothing (every child already carries the stamp),</li>
 *   <li>a propagation that stopped half way (crash, cancel) resumes with exactly the children not yet
 *       done, whatever order the stream had,</li>
 *   <li>a catch-up pass finds children created with old copies while the job ran.</li>
 * </ul>
 * The stamp field must be mapped as {@code long} (dynamic mapping does that); with
 * {@code dynamic: strict}, add it to the child mapping. Reindexing the <em>parent</em> index into a new
 * index restarts its seq_nos: then stamps are meaningless, run a propagation with
 * {@link Propagator.Builder#ignoreStamps(boolean)} once.
 *
 * <p>Paths are dotted object paths ({@code user.name} is {@code {"user": {"name": ...}}}). Immutable
 * and thread-safe.
 */
public final class Relation {

    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9_-]{1,100}");

    /**
     * One copied field: the parent's {@code from} is copied to the child's {@code to}.
     *
     * @param from the dotted path of the field in the parent's source ({@code name})
     * @param to the dotted path the value is copied to in the child's source ({@code user.name})
     */
    public record Copy(String from, String to) {
        /**
         * Creates a copy after checking both paths.
         *
         * @throws NullPointerException if {@code from} or {@code to} is {@code null}
         * @throws IllegalArgumentException if a path is empty, starts or ends with a dot, or contains
         *     {@code ..}
         */
        public Copy {
            checkPath(from, "copy source");
            checkPath(to, "copy target");
        }

        @Override
        public String toString() {
            return from + " -> " + to;
        }
    }

    private final String name;
    private final String parentIndex;
    private final String childIndex;
    private final String parentIdField;
    private final List<Copy> copies;
    private final String stampField;
    private final boolean childrenRoutedByParent;

    private Relation(Builder b) {
        this.name = Objects.requireNonNull(b.name, "name cannot be null");
        this.parentIndex = Objects.requireNonNull(b.parentIndex, "parentIndex cannot be null");
        this.childIndex = Objects.requireNonNull(b.childIndex, "childIndex cannot be null");
        this.parentIdField = Objects.requireNonNull(b.parentIdField, "parentIdField cannot be null");
        if (b.copies.isEmpty()) {
            throw new IllegalArgumentException(
                    "relation [" + name + "] copies no field: add at least one copy(from, to)");
        }
        this.copies = List.copyOf(b.copies);
        this.stampField = b.stampField != null ? b.stampField : "esrel." + name;
        this.childrenRoutedByParent = b.childrenRoutedByParent;
        List<String> written = new ArrayList<>();
        for (Copy c : copies) {
            written.add(c.to());
        }
        written.add(stampField);
        written.add(parentIdField);
        for (int i = 0; i < written.size(); i++) {
            for (int j = i + 1; j < written.size(); j++) {
                String a = written.get(i);
                String c = written.get(j);
                if (a.equals(c) || a.startsWith(c + ".") || c.startsWith(a + ".")) {
                    throw new IllegalArgumentException("relation [" + name + "]: child fields [" + a + "] and [" + c
                            + "] overlap; the parent id field, the stamp field and every copy target must be distinct"
                            + " and not inside one another");
                }
            }
        }
    }

    /**
     * Declares a relation with a lambda, in the style of the elasticsearch-java client.
     *
     * @param fn sets the builder's values: at least the name, both indices, the parent id field and one
     *     copy
     * @return the new relation
     * @throws NullPointerException if a required value is missing
     * @throws IllegalArgumentException if a value is invalid, no field is copied or child fields overlap
     */
    public static Relation of(Function<Builder, Builder> fn) {
        return fn.apply(new Builder()).build();
    }

    /**
     * Starts a builder.
     *
     * @return a new, empty builder
     */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * The relation's name: part of the stamp field and of job ids.
     *
     * @return the name: 1 to 100 letters, digits, {@code _} or {@code -}
     */
    public String name() {
        return name;
    }

    /**
     * The index of the "one" side, whose documents the copies come from.
     *
     * @return the parent index (or alias)
     */
    public String parentIndex() {
        return parentIndex;
    }

    /**
     * The index of the "many" side, whose documents hold the copies.
     *
     * @return the child index (or alias)
     */
    public String childIndex() {
        return childIndex;
    }

    /**
     * The child field holding the parent's id; must be searchable with a {@code term} query.
     *
     * @return the dotted path of the field ({@code user.id})
     */
    public String parentIdField() {
        return parentIdField;
    }

    /**
     * The copied fields, in the order they were declared.
     *
     * @return an unmodifiable list with at least one copy
     */
    public List<Copy> copies() {
        return copies;
    }

    /**
     * The child field holding the parent's {@code _seq_no} the copies come from (a long).
     *
     * @return the dotted path of the stamp, {@code esrel.<name>} unless set otherwise
     */
    public String stampField() {
        return stampField;
    }

    /**
     * Whether children are routed by their parent's id, so that their search can visit one shard.
     *
     * @return the value set with {@link Builder#childrenRoutedByParent(boolean)}, default false
     */
    public boolean childrenRoutedByParent() {
        return childrenRoutedByParent;
    }

    @Override
    public String toString() {
        return "Relation{" + name + ": " + parentIndex + " -> " + childIndex + "." + parentIdField + ", copies="
                + copies + ", stamp=" + stampField + (childrenRoutedByParent ? ", children routed by parent" : "")
                + '}';
    }

    static void checkPath(String path, String what) {
        Objects.requireNonNull(path, what + " cannot be null");
        if (path.isEmpty() || path.startsWith(".") || path.endsWith(".") || path.contains("..")) {
            throw new IllegalArgumentException(
                    what + " must be a dotted field path like user.name, got [" + path + "]");
        }
    }

    /** Builder for {@link Relation}. Not thread-safe. */
    public static final class Builder implements ObjectBuilder<Relation> {
        private @Nullable String name;
        private @Nullable String parentIndex;
        private @Nullable String childIndex;
        private @Nullable String parentIdField;
        private final List<Copy> copies = new ArrayList<>();
        private @Nullable String stampField;
        private boolean childrenRoutedByParent;

        private Builder() {}

        /**
         * Required: letters, digits, {@code _} and {@code -}, at most 100.
         *
         * @param name the relation's name, used in the default stamp field and in job ids
         * @return this builder
         * @throws NullPointerException if {@code name} is {@code null}
         * @throws IllegalArgumentException otherwise
         */
        public Builder name(String name) {
            Objects.requireNonNull(name, "name cannot be null");
            if (!NAME.matcher(name).matches()) {
                throw new IllegalArgumentException(
                        "relation name must be 1-100 letters, digits, '_' or '-', got [" + name + "]");
            }
            this.name = name;
            return this;
        }

        /**
         * Required: the index of the "one" side (users).
         *
         * @param parentIndex the index (or alias) the parents are read from
         * @return this builder
         * @throws NullPointerException if {@code parentIndex} is {@code null}
         * @throws IllegalArgumentException if {@code parentIndex} is blank
         */
        public Builder parentIndex(String parentIndex) {
            this.parentIndex = requireText(parentIndex, "parentIndex");
            return this;
        }

        /**
         * Required: the index of the "many" side (posts).
         *
         * @param childIndex the index (or alias) the children are searched and written in
         * @return this builder
         * @throws NullPointerException if {@code childIndex} is {@code null}
         * @throws IllegalArgumentException if {@code childIndex} is blank
         */
        public Builder childIndex(String childIndex) {
            this.childIndex = requireText(childIndex, "childIndex");
            return this;
        }

        /**
         * Required: the child field that holds the parent's id ({@code user.id}); keyword or numeric.
         *
         * @param field the dotted path of the field
         * @return this builder
         * @throws NullPointerException if {@code field} is {@code null}
         * @throws IllegalArgumentException if {@code field} is not a dotted field path
         */
        public Builder parentIdField(String field) {
            checkPath(field, "parentIdField");
            this.parentIdField = field;
            return this;
        }

        /**
         * Copies the parent's field {@code from} into the child's {@code to}. At least one is required.
         * A parent without the field (or with {@code null}) removes the child's copy.
         *
         * @param from the dotted path of the field in the parent
         * @param to the dotted path of the copy in the child; must not overlap another copy target, the
         *     parent id field or the stamp field
         * @return this builder
         * @throws NullPointerException if {@code from} or {@code to} is {@code null}
         * @throws IllegalArgumentException if {@code from} or {@code to} is not a dotted field path
         */
        public Builder copy(String from, String to) {
            copies.add(new Copy(from, to));
            return this;
        }

        /**
         * Where the stamp lives in the child. Default {@code esrel.<name>}.
         *
         * @param field the dotted path of the stamp, to be mapped as {@code long}
         * @return this builder
         * @throws NullPointerException if {@code field} is {@code null}
         * @throws IllegalArgumentException if {@code field} is not a dotted field path
         */
        public Builder stampField(String field) {
            checkPath(field, "stampField");
            this.stampField = field;
            return this;
        }

        /**
         * Children are written with {@code routing = parent id} (seed 002's co-location), so searches for
         * one parent's children visit one shard. Default false: every shard is searched (correct either
         * way; writes always use each child's own routing).
         *
         * @param routed true if every child is indexed with its parent's id as routing
         * @return this builder
         */
        public Builder childrenRoutedByParent(boolean routed) {
            this.childrenRoutedByParent = routed;
            return this;
        }

        /**
         * Builds the relation.
         *
         * @return the new, immutable relation
         * @throws NullPointerException if a required value is missing
         * @throws IllegalArgumentException if no field is copied or child fields overlap
         */
        @Override
        public Relation build() {
            return new Relation(this);
        }

        private static String requireText(String s, String what) {
            Objects.requireNonNull(s, what + " cannot be null");
            if (s.isBlank()) {
                throw new IllegalArgumentException(what + " cannot be blank");
            }
            return s;
        }
    }
}
