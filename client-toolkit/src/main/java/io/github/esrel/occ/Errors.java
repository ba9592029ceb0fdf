package io.github.esrel.occ;

import co.elastic.clients.elasticsearch.ElasticsearchClient;
import co.elastic.clients.elasticsearch._types.ElasticsearchException;
import co.elastic.clients.elasticsearch.core.SearchRequest;
import co.elastic.clients.elasticsearch.core.search.Hit;
import io.github.esrel.internal.NodeComponents;
import io.github.esrel.internal.Reasons;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Turns Elasticsearch failures into messages that name the value and the fix. */
final class Errors {

    private static final Logger log = LoggerFactory.getLogger(Errors.class);

    /** The module that provides painless; the integ-test distribution ships without it. */
    static final String PAINLESS_MODULE = "lang-painless";

    private Errors() {}

    static String where(String index, String id, @Nullable String routing) {
        return "[" + index + "][" + id + "]" + (routing == null ? "" : " (routing [" + routing + "])");
    }

    /** A failure of a read or write of one document, with a message naming the value and the fix. */
    static OccException translate(
            String what, String index, String id, @Nullable String routing, ElasticsearchException e) {
        if (Reasons.hasType(e, "routing_missing_exception")) {
            return new OccException(
                    what + " " + where(index, id, routing) + " failed: index [" + index
                            + "] requires a routing value (_routing.required: true in its mapping); pass the routing the document"
                            + " was written with",
                    e.status(),
                    e);
        }
        if (Reasons.hasType(e, "strict_dynamic_mapping_exception")) {
            return new OccException(
                    what + " " + where(index, id, routing) + " failed: " + strictMapping(index, e), e.status(), e);
        }
        if (Reasons.hasType(e, "index_not_found_exception")) {
            return new OccException(
                    what + " " + where(index, id, routing) + " failed: no such index [" + index + "]", e.status(), e);
        }
        return new OccException(what + " " + where(index, id, routing) + " failed: " + Reasons.of(e), e.status(), e);
    }

    /**
     * Why an index mapped {@code "dynamic": "strict"} refused a write, and the fix: for esrel's write log, the mapping
     * that stores it without indexing it, or an {@code Occ} without it.
     */
    static String strictMapping(String index, ElasticsearchException e) {
        String reason = Reasons.of(e);
        int at = reason.indexOf("introduction of [");
        String field = at < 0 ? null : reason.substring(at + 17, Math.max(at + 17, reason.indexOf(']', at + 17)));
        if (field != null && (field.equals(WriteLog.DEFAULT_FIELD) || field.startsWith("_esrel"))) {
            return "index [" + index + "] is mapped \"dynamic\": \"strict\" and does not map [" + field + "], the write"
                    + " log by which esrel recognises a write it already applied (Occ.Builder#writeLog): add it to the"
                    + " mapping as {\"" + field + "\": {\"type\": \"object\", \"enabled\": false}} (stored, not"
                    + " indexed), or build the Occ with writeLog(false), which gives up recognising writes sent twice by"
                    + " a proxy or by Elasticsearch (see its Javadoc). Server said: " + reason;
        }
        return "index [" + index + "] is mapped \"dynamic\": \"strict\" and refuses a field the document would get"
                + (field == null ? "" : ", [" + field + "]") + ": map it, or leave it out of the class. Server said: "
                + reason;
    }

    /** See {@link Reasons#mayHaveApplied}. */
    static boolean mayHaveApplied(ElasticsearchException e) {
        return Reasons.mayHaveApplied(e);
    }

    /** Why a write that met {@code e} has an unknown outcome, for {@link Outcome#error()}. */
    static String unknown(String what, Exception e) {
        String cause =
                e instanceof ElasticsearchException ee ? "[" + ee.status() + "] " + Reasons.of(ee) : e.toString();
        return "the " + what + " was sent, but whether it was applied is not known (" + cause
                + "); it was not sent again, which could apply it twice: read the document to decide";
    }

    static OccException io(String what, String index, String id, @Nullable String routing, Exception e) {
        return new OccException(what + " " + where(index, id, routing) + " failed: " + e, 0, e);
    }

    /**
     * Seed 002: a routed document read without its routing (or with another one) is looked for on the
     * wrong shard and is simply "not found". Looks for the id on every shard and, if it lives there under
     * another routing, fails with a message naming it. Best effort: only documents visible to search
     * (refreshed) are seen, and a failed search proves nothing (it is ignored).
     *
     * @throws OccException (status 404) if the id exists in the index with another routing
     */
    static void checkRouting(OccCore core, String index, String id, @Nullable String routing) {
        OccException wrong = wrongRouting(core, index, id, routing).join(); // a failed search is null, not a failure
        if (wrong != null) {
            throw wrong;
        }
    }

    /**
     * {@link #checkRouting}'s search: completes with the failure to throw when the id exists in the index with
     * another routing, with {@code null} otherwise (also when the search failed).
     */
    static CompletableFuture<@Nullable OccException> wrongRouting(
            OccCore core, String index, String id, @Nullable String routing) {
        return core.sender()
                .search(SearchRequest.of(s ->
                        s.index(index).size(10).source(src -> src.fetch(false)).query(q -> q.ids(i -> i.values(id)))))
                .handle((found, failure) -> {
                    if (failure != null) {
                        log.debug("routing check of {} failed, ignored", where(index, id, routing), failure);
                        return null;
                    }
                    for (Hit<Void> hit : found.hits().hits()) {
                        if (!Objects.equals(hit.routing(), routing)) {
                            return wrongRouting(index, id, routing, hit);
                        }
                    }
                    return null;
                });
    }

    private static OccException wrongRouting(String index, String id, @Nullable String routing, Hit<Void> hit) {
        String elsewhere = hit.routing() == null ? "without routing" : "with routing [" + hit.routing() + "]";
        String asked = routing == null ? "without routing" : "with routing [" + routing + "]";
        return new OccException(
                "document [" + id + "] is not found in [" + index + "] " + asked
                        + ", but it exists in [" + hit.index() + "] " + elsewhere
                        + ": a routed document lives on the shard"
                        + " of its routing value and every get, update and delete must pass that same routing, here DocRef.of(\""
                        + index + "\", \"" + id + "\")"
                        + (hit.routing() == null ? "" : ".withRouting(\"" + hit.routing() + "\")")
                        + "; writing it with another routing would create a second copy on another shard",
                404,
                null);
    }

    /** True when the failure is a scripted update that could not run its script. */
    static boolean isScriptFailure(ElasticsearchException e) {
        String all = Reasons.of(e).toLowerCase(java.util.Locale.ROOT);
        return all.contains("script") || all.contains("painless");
    }

    /**
     * Whether every node has the {@code lang-painless} module. Node info may be forbidden to the
     * caller: then the answer is unknown ({@code null}).
     */
    static @Nullable Boolean painlessOnEveryNode(ElasticsearchClient client) {
        try {
            Map<String, NodeComponents> nodes = NodeComponents.of(client);
            return !nodes.isEmpty()
                    && nodes.values().stream().allMatch(n -> n.modules().contains(PAINLESS_MODULE));
        } catch (Exception e) {
            log.debug("cannot read the modules of the nodes", e);
            return null;
        }
    }
}
