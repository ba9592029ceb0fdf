package io.github.esrel.spring.data;

import co.elastic.clients.elasticsearch._types.query_dsl.Query;
import io.github.esrel.doc.DocRef;
import io.github.esrel.join.Join;
import io.github.esrel.join.JoinQuery;
import io.github.esrel.join.JoinResult;
import io.github.esrel.occ.Occ;
import io.github.esrel.occ.Outcome;
import java.util.List;
import java.util.Objects;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.data.elasticsearch.core.ElasticsearchOperations;
import org.springframework.data.repository.core.RepositoryMethodContext;
import org.springframework.data.repository.core.support.RepositoryMetadataAccess;

/**
 * The implementation of {@link EsrelRepository}, registered in {@code META-INF/spring.factories}: Spring Data makes
 * one bean of it (its constructor's arguments are beans) and calls it for every repository that extends the
 * interface. {@link RepositoryMetadataAccess} has Spring Data expose the calling repository, whose domain type names
 * the entity.
 */
class EsrelRepositoryFragment<T, ID> implements EsrelRepository<T, ID>, RepositoryMetadataAccess {

    private final ElasticsearchOperations operations;
    private final ObjectProvider<Occ> occ;
    private final ObjectProvider<Join> join;
    private final ObjectProvider<EntityRelation<?, ?>> relations;
    private final EntityNames entities;

    EsrelRepositoryFragment(
            ElasticsearchOperations operations,
            ObjectProvider<Occ> occ,
            ObjectProvider<Join> join,
            ObjectProvider<EntityRelation<?, ?>> relations) {
        this.operations = operations;
        this.occ = occ;
        this.join = join;
        this.relations = relations;
        // Names only (index, id, field names): the Occ and Join beans map the documents with their own converter.
        this.entities = new EntityNames(operations);
    }

    @Override
    public Outcome<T> update(ID id, UnaryOperator<T> fn) {
        Class<T> type = domainType();
        return occ().update(doc(type, id), type, fn);
    }

    @Override
    public Outcome<T> tryUpdate(ID id, UnaryOperator<T> fn) {
        Class<T> type = domainType();
        return occ().tryUpdate(doc(type, id), type, fn);
    }

    @Override
    public Outcome<T> upsert(ID id, Supplier<T> initial, UnaryOperator<T> fn) {
        Class<T> type = domainType();
        return occ().upsert(doc(type, id), type, initial, fn);
    }

    @Override
    public <C> JoinResult<T, C> childrenOf(
            Class<C> childType, Query parentQuery, UnaryOperator<JoinQuery.Builder<T, C>> options) {
        Objects.requireNonNull(childType, "childType cannot be null");
        return join().childrenOf(query(domainType(), childType, parentQuery, options));
    }

    @Override
    public <P> JoinResult<P, T> childrenWhereParent(
            Class<P> parentType, Query parentQuery, UnaryOperator<JoinQuery.Builder<P, T>> options) {
        Objects.requireNonNull(parentType, "parentType cannot be null");
        return join().childrenWhereParent(query(parentType, domainType(), parentQuery, options));
    }

    private <P, C> JoinQuery<P, C> query(
            Class<P> parentType,
            Class<C> childType,
            Query parentQuery,
            UnaryOperator<JoinQuery.Builder<P, C>> options) {
        Objects.requireNonNull(parentQuery, "parentQuery cannot be null");
        Objects.requireNonNull(options, "options cannot be null");
        EntityRelation<?, ?> relation = relation(parentType, childType);
        JoinQuery.Builder<P, C> b = JoinQuery.builder(parentType, childType)
                .parents(entities.indexName(parentType), parentQuery)
                .children(entities.indexName(childType), entities.fieldName(childType, relation.childKey()));
        return Objects.requireNonNull(options.apply(b), "options returned null").build();
    }

    private EntityRelation<?, ?> relation(Class<?> parentType, Class<?> childType) {
        List<EntityRelation<?, ?>> found = relations
                .orderedStream()
                .filter(r -> r.parentType() == parentType && r.childType() == childType)
                .toList();
        if (found.size() != 1) {
            throw new IllegalStateException((found.isEmpty() ? "no" : found.size()) + " EntityRelation beans between "
                    + parentType.getName() + " and " + childType.getName() + ": declare one, e.g. @Bean"
                    + " EntityRelation<" + parentType.getSimpleName() + ", " + childType.getSimpleName()
                    + "> relation() { return EntityRelation.of(" + parentType.getSimpleName() + ".class, "
                    + childType.getSimpleName() + ".class, \"<the child's property holding the parent's id>\"); }");
        }
        return found.get(0);
    }

    private DocRef doc(Class<T> type, ID id) {
        return DocRef.of(entities.indexName(type), entities.id(id));
    }

    private Occ occ() {
        Occ bean = occ.getIfUnique();
        if (bean == null) {
            throw new IllegalStateException("EsrelRepository needs one Occ bean built with"
                    + " documentConverter(SpringDataDocumentConverter.of(operations, client)); esrel's Spring Boot"
                    + " starter makes one when the application has Spring Data Elasticsearch");
        }
        return bean;
    }

    private Join join() {
        Join bean = join.getIfUnique();
        if (bean == null) {
            throw new IllegalStateException("EsrelRepository's joins need one Join bean built with"
                    + " documentConverter(SpringDataDocumentConverter.of(operations, client)); with esrel's Spring Boot"
                    + " starter: @Bean Join join(JoinDefaults defaults) { return Join.of(defaults::applyTo); }");
        }
        return bean;
    }

    @SuppressWarnings("unchecked") // the repository's domain type is T, by the fragment's declaration
    private Class<T> domainType() {
        return (Class<T>) RepositoryMethodContext.getContext().getMetadata().getDomainType();
    }

    @Override
    public String toString() {
        return "EsrelRepositoryFragment{" + operations.getClass().getSimpleName() + '}';
    }
}
