package io.github.esrel.spring.data;

import co.elastic.clients.elasticsearch._types.query_dsl.Query;
import io.github.esrel.join.JoinQuery;
import io.github.esrel.join.JoinResult;
import io.github.esrel.occ.Outcome;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;

/**
 * A Spring Data repository fragment: a repository of a Spring Data Elasticsearch entity that also extends this
 * interface gets esrel's optimistic updates and joins, with no code of its own.
 *
 * <pre>{@code
 * interface DesignRepository extends ElasticsearchRepository<Design, String>, EsrelRepository<Design, String> {}
 *
 * designs.save(new Design("d-1", "Blue", 0));          // Spring Data
 * designs.update("d-1", Design::vote);                 // esrel: 8 threads or 8 instances, no vote lost
 * }</pre>
 *
 * <p>Spring Data finds the implementation through {@code META-INF/spring.factories} (Spring Data Commons 3.4+): the
 * interface must be a direct super-interface of the repository. One implementation bean serves every repository; it
 * needs an {@code Occ} bean built with a {@link SpringDataDocumentConverter} (the esrel Spring Boot starters make one
 * when the application has Spring Data Elasticsearch), Spring Data's {@code ElasticsearchOperations}, and for the joins
 * a {@code Join} bean and an {@link EntityRelation} bean.
 *
 * <p>Updates go through that {@code Occ}: read the entity (realtime), apply the function, write it back if the
 * document has not changed since ({@code if_seq_no}/{@code if_primary_term}), else re-read and re-apply under the
 * {@code Occ}'s retry policy; concurrent updates of one document through one {@code Occ} are combined into one write.
 * The stored document is what {@code save} would store for the entity the function returned, and fields the entity
 * does not map stay as stored. The returned entity carries the write's {@code @Version} and {@code SeqNoPrimaryTerm}.
 * Spring Data's own {@code save} with a {@code SeqNoPrimaryTerm} property, by contrast, throws on the first conflict
 * and retries nothing. The document is addressed by its id in the entity's {@code @Document} index, routed by its id:
 * for an entity routed by {@code @Routing}, use {@code Occ} with {@code DocRef.of(index, id).withRouting(...)}.
 *
 * @param <T> the repository's entity
 * @param <ID> the type of its id
 */
public interface EsrelRepository<T, ID> {

    /**
     * Applies {@code fn} to the stored entity and stores the result, retrying on conflicts; see
     * {@code Occ.update}.
     *
     * @param id the entity's id
     * @param fn the pure function from the stored entity to the new one; may run once per attempt
     * @return {@code UPDATED} (the value carries the new version), {@code NOOP} or {@code NOT_FOUND}
     * @throws org.springframework.dao.OptimisticLockingFailureException (with the starter's exception translation) or
     *     {@code OccConflictException} if the document kept changing until the retry policy ran out
     */
    Outcome<T> update(ID id, UnaryOperator<T> fn);

    /**
     * {@link #update}, returning giving up as an outcome ({@code CONFLICT}) instead of throwing.
     *
     * @param id the entity's id
     * @param fn the pure function from the stored entity to the new one; may run once per attempt
     * @return {@code UPDATED}, {@code NOOP}, {@code NOT_FOUND} or {@code CONFLICT}
     */
    Outcome<T> tryUpdate(ID id, UnaryOperator<T> fn);

    /**
     * Creates the entity from {@code initial} when it does not exist (exactly one creator wins), else updates it;
     * see {@code Occ.upsert}.
     *
     * @param id the entity's id
     * @param initial supplies the entity to start from when there is none
     * @param fn the pure function applied to the stored entity, or to the initial one
     * @return {@code CREATED}, {@code UPDATED} or {@code NOOP}
     */
    Outcome<T> upsert(ID id, Supplier<T> initial, UnaryOperator<T> fn);

    /**
     * This repository's entities matching {@code parentQuery}, each with its children of {@code childType} (the
     * {@link EntityRelation} declared for the two); see {@code Join.childrenOf}.
     *
     * @param <C> the child entity
     * @param childType the child entity class
     * @param parentQuery which parents, e.g. {@code Query.of(q -> q.term(t -> t.field("country").value("NO")))}
     * @param options the join's other options (sorts, page sizes, a child query), on a builder holding the indices,
     *     the key and {@code parentQuery}; {@code UnaryOperator.identity()} for none
     * @return the parents with their children
     * @throws IllegalStateException if no relation between the two entities is declared, or there is no join bean
     */
    <C> JoinResult<T, C> childrenOf(
            Class<C> childType, Query parentQuery, UnaryOperator<JoinQuery.Builder<T, C>> options);

    /**
     * This repository's entities whose parent of {@code parentType} matches {@code parentQuery}, each with its
     * parent; see {@code Join.childrenWhereParent}.
     *
     * @param <P> the parent entity
     * @param parentType the parent entity class
     * @param parentQuery which parents
     * @param options the join's other options (a child query, sorts, page sizes), on a builder holding the indices,
     *     the key and {@code parentQuery}; {@code UnaryOperator.identity()} for none
     * @return the children paired with their parents
     * @throws IllegalStateException if no relation between the two entities is declared, or there is no join bean
     */
    <P> JoinResult<P, T> childrenWhereParent(
            Class<P> parentType, Query parentQuery, UnaryOperator<JoinQuery.Builder<P, T>> options);
}
