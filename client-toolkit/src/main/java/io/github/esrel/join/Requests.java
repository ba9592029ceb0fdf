package io.github.esrel.join;

import co.elastic.clients.elasticsearch._types.FieldValue;
import co.elastic.clients.elasticsearch._types.SortOptions;
import co.elastic.clients.elasticsearch._types.SortOrder;
import co.elastic.clients.elasticsearch._types.Time;
import co.elastic.clients.elasticsearch._types.aggregations.Aggregation;
import co.elastic.clients.elasticsearch._types.query_dsl.Query;
import co.elastic.clients.elasticsearch.core.SearchRequest;
import co.elastic.clients.elasticsearch.core.search.SourceConfig;
import co.elastic.clients.util.NamedValue;
import io.github.esrel.internal.ClientApi;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/** The searches joins and groupings send, built in one place so that tests can look at them. */
final class Requests {

    /** Name of the inner hits / top hits that carry each group's documents. */
    static final String GROUP_HITS = "group_hits";
    /** Name of the terms aggregation of the terms form. */
    static final String GROUPS = "groups";
    /** Name of the seed's {@code max(_score)} sub-aggregation. */
    static final String TOP_SCORE = "top_score";

    private Requests() {}

    static List<FieldValue> values(List<String> keys) {
        List<FieldValue> out = new ArrayList<>(keys.size());
        for (String k : keys) {
            out.add(FieldValue.of(k));
        }
        return out;
    }

    /** {@code terms} on {@code field}, or {@code ids} for {@value JoinQuery#ID}. */
    static Query keysIn(String field, List<String> keys) {
        if (JoinQuery.ID.equals(field)) {
            return Query.of(q -> q.ids(i -> i.values(keys)));
        }
        List<FieldValue> values = values(keys);
        return Query.of(q -> q.terms(t -> t.field(field).terms(v -> v.value(values))));
    }

    /** {@code query} scored as given, restricted (without scoring) to children of these keys. */
    static Query childrenOf(Query query, String childKey, List<String> keys) {
        Query terms = keysIn(childKey, keys);
        return Query.of(q -> q.bool(b -> b.must(query).filter(terms)));
    }

    /**
     * A page of the parent side for {@link Join#childrenOf}, in the parent order ({@code size}
     * includes the look-ahead hit that tells whether more follow).
     *
     * @param pitId the point in time to read, or {@code null} to read the index directly
     * @param after sort values to continue after (PIT pages only), or empty
     * @param from parents to skip (the first PIT page after a page read without a PIT)
     */
    static SearchRequest parentPage(
            JoinQuery<?, ?> q, @Nullable String pitId, Time keepAlive, List<FieldValue> after, int from, int size) {
        return SearchRequest.of(s -> {
            if (pitId == null) {
                s.index(q.parentIndex());
            } else {
                s.pit(p -> p.id(pitId).keepAlive(keepAlive));
            }
            s.query(q.parentQuery())
                    .sort(SortValues.orDefault(q.parentSort()))
                    .trackScores(true)
                    .size(size);
            if (after != null && !after.isEmpty()) {
                s.searchAfter(after);
            } else if (from > 0) {
                s.from(from);
            }
            if (q.parentSource() != null) {
                s.source(q.parentSource());
            }
            if (!q.parentKeyIsId()) {
                s.docvalueFields(f -> f.field(q.parentKey()));
            }
            return s;
        });
    }

    /**
     * A page of parent keys for {@link Join#childrenWhereParent}: in index order (no scoring; the
     * order does not matter), counting matches up to {@code trackUpTo}.
     *
     * @param pitId the point in time, or {@code null} for the first page read directly
     */
    static SearchRequest parentKeys(
            JoinQuery<?, ?> q,
            @Nullable String pitId,
            @Nullable Time keepAlive,
            List<FieldValue> after,
            int size,
            int trackUpTo) {
        return parentKeys(
                q, pitId, keepAlive, after, size, trackUpTo, q.parentFetch() == JoinQuery.ParentFetch.LAZY, false);
    }

    /**
     * The first round trip's preview of {@link JoinQuery.Plan#AUTO}: the first {@code size} matching
     * parents' keys, counting matches up to {@code trackUpTo}; with their sources only when they are
     * fetched eagerly and keyed by {@code _id}, whose stored-field read loads the source's block anyway.
     * A doc-values key is read alone: most previewed parents never join, and those that do are read
     * next to their children ({@link #previewReadsKeysOnly}). Parents read with their sources come with their
     * {@code _seq_no}, so that those on the answer's page can be checked for changes when it is asked again
     * ({@link PageParents}).
     */
    static SearchRequest parentKeyPreview(JoinQuery<?, ?> q, int size, int trackUpTo) {
        boolean keysOnly = previewReadsKeysOnly(q);
        return parentKeys(q, null, null, List.of(), size, trackUpTo, keysOnly, !keysOnly);
    }

    /** Whether {@link #parentKeyPreview} reads keys alone (the parents' sources, if wanted, are read later). */
    static boolean previewReadsKeysOnly(JoinQuery<?, ?> q) {
        return q.parentFetch() == JoinQuery.ParentFetch.LAZY || !q.parentKeyIsId();
    }

    private static SearchRequest parentKeys(
            JoinQuery<?, ?> q,
            @Nullable String pitId,
            @Nullable Time keepAlive,
            List<FieldValue> after,
            int size,
            int trackUpTo,
            boolean keysOnly,
            boolean seqNo) {
        return SearchRequest.of(s -> {
            if (pitId == null) {
                s.index(q.parentIndex()).sort(so -> so.doc(d -> d));
            } else {
                s.pit(p -> p.id(pitId).keepAlive(keepAlive)).sort(so -> so.field(f -> f.field("_shard_doc")));
            }
            s.query(q.parentQuery()).size(size).trackTotalHits(t -> t.count(trackUpTo));
            if (after != null && !after.isEmpty()) {
                s.searchAfter(after);
            }
            if (keysOnly) {
                s.source(src -> src.fetch(false));
                if (!q.parentKeyIsId()) {
                    // Doc values only: no stored field is read per hit, not even _id (the costly part
                    // of reading thousands of keys).
                    s.storedFields("_none_");
                }
            } else if (q.parentSource() != null) {
                s.source(q.parentSource());
            }
            if (!q.parentKeyIsId()) {
                s.docvalueFields(f -> f.field(q.parentKey()));
            }
            if (seqNo) {
                s.seqNoPrimaryTerm(true);
            }
            return s;
        });
    }

    /**
     * The parents of these keys: all of them (for {@link JoinQuery.ParentFetch#LAZY}), or only those
     * matching the parent query (children-first's check).
     */
    static SearchRequest parentsByKey(JoinQuery<?, ?> q, List<String> keys, boolean matching) {
        Query byKey = keysIn(q.parentKey(), keys);
        Query query =
                matching ? Query.of(x -> x.bool(b -> b.filter(q.parentQuery()).filter(byKey))) : byKey;
        return SearchRequest.of(s -> {
            // With each parent's _seq_no, so that the parents of a page can be checked for changes (PageParents).
            s.index(q.parentIndex()).query(query).size(keys.size()).seqNoPrimaryTerm(true);
            if (q.parentSource() != null) {
                s.source(q.parentSource());
            }
            if (!q.parentKeyIsId()) {
                s.docvalueFields(f -> f.field(q.parentKey()));
            }
            return s;
        });
    }

    /** The aggregation of {@link #keysStillMatch} that counts the parents among the keys that match. */
    static final String MATCHING_AMONG_KEYS = "matching_among_keys";
    /** The aggregation of {@link #keysStillMatch}, under {@value #MATCHING_AMONG_KEYS}, of the last page's parents. */
    static final String PAGE_PARENTS = "page_parents";
    /** The sum of the {@code _seq_no} of the last page's parents, under {@value #PAGE_PARENTS}. */
    static final String SEQ_NO_SUM = "seq_no_sum";

    /**
     * Whether these keys are still those of every matching parent: counts the parents that match (the hit count) and,
     * as the aggregation {@value #MATCHING_AMONG_KEYS}, those of them among the keys. Both equal to the number of keys
     * means every key names a parent that matches and no other parent does. One search, so that each shard answers
     * both from one state. {@code _id} keys only: each names one parent.
     *
     * @param page the parents of the last answer's page as read, to be counted and their {@code _seq_no} summed in
     *     the aggregation {@value #PAGE_PARENTS} ({@link PageParents#unchanged}); {@code null}: not checked
     */
    static SearchRequest keysStillMatch(JoinQuery<?, ?> q, List<String> keys, @Nullable PageParents page) {
        Query ids = keysIn(q.parentKey(), keys);
        return SearchRequest.of(s -> s.index(q.parentIndex())
                .size(0)
                .trackTotalHits(t -> t.enabled(true))
                .query(q.parentQuery())
                .aggregations(MATCHING_AMONG_KEYS, a -> {
                    a.filter(ids);
                    if (page != null) {
                        List<FieldValue> indices =
                                page.indices().stream().map(FieldValue::of).toList();
                        Query pageParents = Query.of(f -> f.bool(b -> b.filter(keysIn(JoinQuery.ID, page.keys()))
                                .filter(i -> i.terms(t -> t.field("_index").terms(v -> v.value(indices))))));
                        a.aggregations(
                                PAGE_PARENTS,
                                p -> p.filter(pageParents)
                                        .aggregations(SEQ_NO_SUM, m -> m.sum(x -> x.field("_seq_no"))));
                    }
                    return a;
                }));
    }

    /** Counts every document of an index (how many parents there are, to estimate a join's selectivity). */
    static SearchRequest countAll(String index) {
        return SearchRequest.of(s -> s.index(index).size(0).trackTotalHits(t -> t.enabled(true)));
    }

    /**
     * Children-first: the next {@code size} children in the child order, with their keys. Read directly,
     * they start at {@code from}, and the {@code preference} keeps every page on the same shard copies so
     * that pages line up; in a point in time they start after {@code after} (empty: at the start).
     */
    static SearchRequest childProbe(
            JoinQuery<?, ?> q, ChildSide side, List<FieldValue> after, int from, int size, String preference) {
        return childProbe(q, side, after, from, size, preference, null);
    }

    /**
     * {@link #childProbe(JoinQuery, ChildSide, List, int, int, String)}, the child query filtered by where a recent
     * read of the same children ended ({@link ChildOrderBounds}); {@code bound} {@code null}: unfiltered.
     */
    static SearchRequest childProbe(
            JoinQuery<?, ?> q,
            ChildSide side,
            List<FieldValue> after,
            int from,
            int size,
            String preference,
            ChildOrderBounds.@Nullable Bound bound) {
        return SearchRequest.of(s -> {
            side.target(s);
            s.query(bound == null ? q.childQuery() : bound.filter(q.childQuery()))
                    .sort(side.sort(q))
                    .size(size)
                    .trackTotalHits(t -> t.enabled(false))
                    .docvalueFields(f -> f.field(q.childKey()));
            if (side.inPit()) {
                if (!after.isEmpty()) {
                    s.searchAfter(after);
                }
            } else {
                s.from(from).preference(preference);
            }
            if (q.childSource() != null) {
                s.source(q.childSource());
            }
            return s;
        });
    }

    /**
     * The first {@code size} children of one batch of parent keys, in the child sort (made explicit
     * so that hits carry the sort values batches are merged by), after the side's position.
     */
    static SearchRequest childBatch(JoinQuery<?, ?> q, ChildSide side, List<String> keys, int size) {
        return SearchRequest.of(s -> {
            side.target(s);
            s.query(childrenOf(q.childQuery(), q.childKey(), keys))
                    .sort(side.sort(q))
                    .size(size)
                    .docvalueFields(f -> f.field(q.childKey()));
            if (!side.after().isEmpty()) {
                s.searchAfter(side.after());
            }
            if (q.childSource() != null) {
                s.source(q.childSource());
            }
            return s;
        });
    }

    /**
     * Field collapsing: the best {@code groups} groups of {@code field} by their best hit's score,
     * each with its top {@code perGroup} documents as inner hits. Documents without a value are left
     * out (as the terms form leaves them out).
     */
    static SearchRequest collapse(
            String index,
            Query query,
            String field,
            int from,
            int groups,
            int perGroup,
            List<SortOptions> perGroupSort,
            @Nullable SourceConfig source) {
        return SearchRequest.of(s -> {
            s.index(index)
                    .query(grouped(query, field))
                    .from(from)
                    .size(groups)
                    .source(src -> src.fetch(false))
                    .collapse(c -> c.field(field).innerHits(ih -> {
                        ih.name(GROUP_HITS).size(perGroup);
                        if (!perGroupSort.isEmpty()) {
                            ih.sort(perGroupSort).trackScores(true);
                        }
                        if (source != null) {
                            ih.source(source);
                        }
                        return ih;
                    }));
            return s;
        });
    }

    /**
     * The seed's form (seed 000 §1.3): a {@code terms} aggregation on the group field ordered by the
     * {@code max} of {@code _score} (a painless script), with {@code top_hits} per bucket.
     */
    static SearchRequest termsByScriptedMaxScore(GroupQuery<?> q, int buckets) {
        return terms(
                q,
                Aggregation.of(a -> a.terms(
                                t -> t.field(q.field()).size(buckets).order(NamedValue.of(TOP_SCORE, SortOrder.Desc)))
                        .aggregations(TOP_SCORE, m -> m.max(x -> x.script(ClientApi.painless("_score", Map.of()))))
                        .aggregations(GROUP_HITS, topHits(q))));
    }

    /**
     * The terms form without scripts: every bucket (up to {@code buckets}) with its {@code top_hits};
     * esrel orders the buckets by their best score itself.
     */
    static SearchRequest termsAllBuckets(GroupQuery<?> q, int buckets) {
        return terms(
                q,
                Aggregation.of(
                        a -> a.terms(t -> t.field(q.field()).size(buckets)).aggregations(GROUP_HITS, topHits(q))));
    }

    /** The terms forms: no hits of their own, the {@code groups} aggregation over the documents with a value. */
    private static SearchRequest terms(GroupQuery<?> q, Aggregation groups) {
        return SearchRequest.of(s ->
                s.index(q.index()).query(grouped(q.query(), q.field())).size(0).aggregations(GROUPS, groups));
    }

    /** Only documents with a group value: both forms group the same documents and count the same total. */
    static Query grouped(Query query, String field) {
        return Query.of(q -> q.bool(b -> b.must(query).filter(f -> f.exists(e -> e.field(field)))));
    }

    private static Aggregation topHits(GroupQuery<?> q) {
        return Aggregation.of(a -> a.topHits(th -> {
            th.size(q.perGroup());
            if (!q.perGroupSort().isEmpty()) {
                th.sort(q.perGroupSort()).trackScores(true);
            }
            if (q.source() != null) {
                th.source(q.source());
            }
            return th;
        }));
    }
}
