package io.github.esrel.spring.data;

import java.util.Objects;

/**
 * A one-to-many relation between two Spring Data Elasticsearch entities kept in two indices, for the joins of
 * {@link EsrelRepository}: each child holds its parent's id in one property. Declare it as a bean; the repositories of
 * both entities then join over it ({@link EsrelRepository#childrenOf} on the parent's,
 * {@link EsrelRepository#childrenWhereParent} on the child's).
 *
 * <pre>{@code
 * @Bean
 * EntityRelation<Author, Book> booksByAuthor() {
 *     return EntityRelation.of(Author.class, Book.class, "authorId");   // Book.authorId holds its Author's @Id
 * }
 * }</pre>
 *
 * <p>Both indices come from the entities' {@code @Document}. The child's key is a property name, resolved to its
 * field name through Spring Data's mapping ({@code @Field(name = "author_id")}), or a field name; it must be a
 * {@code keyword} (or numeric) field holding one value per child.
 *
 * @param <P> the parent entity
 * @param <C> the child entity
 */
public final class EntityRelation<P, C> {

    private final Class<P> parentType;
    private final Class<C> childType;
    private final String childKey;

    private EntityRelation(Class<P> parentType, Class<C> childType, String childKey) {
        this.parentType = parentType;
        this.childType = childType;
        this.childKey = childKey;
    }

    /**
     * The relation in which each {@code childType} entity holds its parent's id in {@code childKey}.
     *
     * @param <P> the parent entity
     * @param <C> the child entity
     * @param parentType the parent entity class
     * @param childType the child entity class
     * @param childKey the child's property (or field) that holds its parent's id
     * @return the relation
     * @throws NullPointerException if an argument is {@code null}
     * @throws IllegalArgumentException if {@code childKey} is blank
     */
    public static <P, C> EntityRelation<P, C> of(Class<P> parentType, Class<C> childType, String childKey) {
        Objects.requireNonNull(parentType, "parentType cannot be null");
        Objects.requireNonNull(childType, "childType cannot be null");
        Objects.requireNonNull(childKey, "childKey cannot be null");
        if (childKey.isBlank()) {
            throw new IllegalArgumentException("childKey must name the child's property that holds its parent's id");
        }
        return new EntityRelation<>(parentType, childType, childKey);
    }

    /**
     * The parent entity class.
     *
     * @return the class
     */
    public Class<P> parentType() {
        return parentType;
    }

    /**
     * The child entity class.
     *
     * @return the class
     */
    public Class<C> childType() {
        return childType;
    }

    /**
     * The child's property (or field) that holds its parent's id, as given.
     *
     * @return the name
     */
    public String childKey() {
        return childKey;
    }

    @Override
    public String toString() {
        return "EntityRelation{" + parentType.getSimpleName() + " 1-n " + childType.getSimpleName() + "." + childKey
                + '}';
    }
}
