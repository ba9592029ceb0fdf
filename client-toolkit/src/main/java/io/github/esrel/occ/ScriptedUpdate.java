package io.github.esrel.occ;

import co.elastic.clients.elasticsearch._types.ElasticsearchException;
import co.elastic.clients.elasticsearch._types.Result;
import co.elastic.clients.elasticsearch.core.UpdateResponse;
import co.elastic.clients.json.JsonData;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.github.esrel.internal.ClientApi;
import io.github.esrel.internal.Reasons;
import io.github.esrel.retry.StopReason;
import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * {@link Occ#scriptedUpdate}: the update API with a painless script and {@code retry_on_conflict}, the server reading,
 * running the script and writing. One request; its outcome is reported to the listener, and giving up (the server's
 * retries ran out, or the outcome is unknown) becomes the exception only after that.
 */
final class ScriptedUpdate {

    private final OccCore core;

    ScriptedUpdate(OccCore core) {
        this.core = core;
    }

    /** Runs the update; the caller checked the arguments. */
    Outcome<Void> run(
            String index, String id, @Nullable String routing, String painless, Map<String, ?> params, int retries) {
        long start = System.nanoTime();
        core.started(index, Outcome.Operation.SCRIPTED_UPDATE);
        Outcome<Void> outcome;
        try {
            outcome = send(index, id, routing, painless, params, retries);
        } catch (RuntimeException e) {
            throw core.failed(index, Outcome.Operation.SCRIPTED_UPDATE, start, e);
        }
        return outcome.status() == Outcome.Status.CONFLICT || outcome.status() == Outcome.Status.UNKNOWN
                ? core.orThrow(outcome)
                : outcome;
    }

    /** The request and its outcome, reported to the listener; throws what the caller gets. */
    private Outcome<Void> send(
            String index,
            String id,
            @Nullable String routing,
            String painless,
            Map<String, ?> params,
            int retryOnConflict) {
        Map<String, JsonData> jsonParams = new LinkedHashMap<>();
        (params == null ? Map.<String, Object>of() : params)
                .forEach((k, v) -> jsonParams.put(k, JsonData.of(core.json().toParam(v, k))));
        long start = System.nanoTime();
        try {
            UpdateResponse<ObjectNode> r = core.client()
                    .update(
                            u -> {
                                u.index(index)
                                        .id(id)
                                        .retryOnConflict(retryOnConflict)
                                        .refresh(core.refresh())
                                        .script(ClientApi.painless(painless, jsonParams));
                                if (routing != null) {
                                    ClientApi.routing(u, routing);
                                }
                                return u;
                            },
                            ObjectNode.class);
            Outcome.Status status = r.result() == Result.NoOp
                    ? Outcome.Status.NOOP
                    : r.result() == Result.Created
                            ? Outcome.Status.CREATED
                            : r.result() == Result.Deleted ? Outcome.Status.DELETED : Outcome.Status.UPDATED;
            return core.finish(outcome(r.index(), id, routing, status, start)
                    .version(OccCore.orMinus1(r.seqNo()), OccCore.orMinus1(r.primaryTerm()), r.version())
                    .build());
        } catch (ElasticsearchException e) {
            if (e.status() == 409) {
                core.conflict(index, id, 1);
                return core.finish(outcome(index, id, routing, Outcome.Status.CONFLICT, start)
                        .attempts(1, 1)
                        .stopReason(StopReason.MAX_ATTEMPTS)
                        .error("retry_on_conflict=" + retryOnConflict + " exhausted")
                        .build());
            }
            if (e.status() == 404 && Reasons.hasType(e, "document_missing_exception")) {
                return core.finish(outcome(index, id, routing, Outcome.Status.NOT_FOUND, start)
                        .build());
            }
            if (e.status() == 400
                    && Errors.isScriptFailure(e)
                    && Boolean.FALSE.equals(Errors.painlessOnEveryNode(core.client()))) {
                throw new OccException(
                        "scripted update of " + Errors.where(index, id, routing) + " failed: this cluster"
                                + " cannot run painless scripts because the " + Errors.PAINLESS_MODULE
                                + " module is not installed on every"
                                + " node (Elasticsearch's integ-test distribution ships without it). Use Occ.update(...), the optimistic"
                                + " read-modify-write with if_seq_no/if_primary_term, which needs no scripting. Server said: "
                                + Reasons.of(e),
                        e.status(),
                        e);
            }
            if (Errors.mayHaveApplied(e)) {
                return core.finish(unknown(index, id, routing, start, e));
            }
            throw Errors.translate("scripted update of", index, id, routing, e);
        } catch (IOException e) {
            return core.finish(unknown(index, id, routing, start, e));
        }
    }

    private static Outcome<Void> unknown(String index, String id, @Nullable String routing, long start, Exception e) {
        return outcome(index, id, routing, Outcome.Status.UNKNOWN, start)
                .error(Errors.unknown("scripted update", e))
                .cause(e)
                .build();
    }

    private static Outcome.Builder<Void> outcome(
            String index, String id, @Nullable String routing, Outcome.Status status, long start) {
        return Outcome.<Void>builder(index, id, routing, status)
                .operation(Outcome.Operation.SCRIPTED_UPDATE)
                .since(start);
    }
}
