package io.github.esrel.occ;

import co.elastic.clients.elasticsearch.ElasticsearchClient;
import co.elastic.clients.elasticsearch._types.ElasticsearchException;
import co.elastic.clients.elasticsearch._types.Refresh;
import co.elastic.clients.elasticsearch.core.CreateResponse;
import co.elastic.clients.elasticsearch.core.DeleteResponse;
import co.elastic.clients.elasticsearch.core.GetResponse;
import co.elastic.clients.elasticsearch.core.IndexResponse;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.github.esrel.internal.Reasons;
import io.github.esrel.retry.RetryPolicy;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * One attempt of {@link OccCall}s on one document: one realtime read, every call's function applied in
 * order to the freshest value (each to the value the call before it produced), and one write conditional
 * on the seq_no/primary term read; or, for a conditional delete, which always runs alone, the test and
 * the conditional delete. A single uncombined call is a batch of one.
 *
 * <p>Each call gets its own verdict: a function that throws (or maps or serializes badly) fails only its
 * call; one that changes nothing is {@code NOOP}; an update of a missing document is {@code NOT_FOUND}; the
 * upsert that finds the document missing starts from its initial value and is {@code CREATED}, and the
 * calls after it in the same write are {@code UPDATED} on top of it. The write happens when any call
 * changed the value (so every {@code UPDATED} call has a stored version containing its change, even if a
 * later call undid it); its seq_no, primary term and version go to every call it carried. A conflict
 * (409) or a retryable failure of the read or the write is charged to every call still in the attempt,
 * each under its own retry policy: those allowed another attempt are left for it, the others end.
 */
final class OccAttempt implements WriteCombiner.Runner<OccCall<?>> {

    private final Occ occ;
    private final ElasticsearchClient client;
    private final Json json;
    private final Refresh refresh;
    private final RetryPolicy policy;

    OccAttempt(Occ occ) {
        this.occ = occ;
        this.client = occ.client();
        this.json = occ.json();
        this.refresh = occ.refresh();
        this.policy = occ.retryPolicy();
    }

    @Override
    public Duration attempt(List<OccCall<?>> batch) {
        OccCall<?> first = batch.get(0);
        String index = first.index();
        String id = first.id();
        String routing = first.routing();
        try {
            GetResponse<ObjectNode> got;
            ElasticsearchException noIndex = null;
            try {
                got = occ.read(index, id, routing);
            } catch (ElasticsearchException e) {
                if (e.status() == 404
                        && Reasons.hasType(e, "index_not_found_exception")
                        && batch.stream().anyMatch(c -> c.initial != null)) {
                    got = null; // an upsert creates the document (and the index, if the cluster auto-creates)
                    noIndex = e;
                } else {
                    throw e;
                }
            }
            boolean found = got != null && got.found();
            if (!found && batch.stream().anyMatch(c -> !c.routingChecked)) {
                batch.forEach(c -> c.routingChecked = true);
                try {
                    Errors.checkRouting(client, index, id, routing);
                } catch (OccException wrongRouting) {
                    batch.forEach(
                            c -> c.fail(new OccException(wrongRouting.getMessage(), wrongRouting.status(), null)));
                    return Duration.ZERO;
                }
            }
            if (first.deleteIf != null) {
                deleteIf(first, found ? got : null);
            } else {
                combined(batch, found ? got : null, noIndex);
            }
            return Duration.ZERO;
        } catch (ElasticsearchException e) {
            return failed(batch, e);
        } catch (IOException e) {
            for (OccCall<?> call : batch) {
                if (!call.finished()) {
                    call.fail(Errors.io(call.what(), index, id, routing, e));
                }
            }
            return Duration.ZERO;
        }
    }

    private <T> void deleteIf(OccCall<T> call, GetResponse<ObjectNode> got) throws IOException {
        if (got == null) {
            call.done(call.outcome(call.index(), Outcome.Status.NOT_FOUND).build());
            return;
        }
        T current;
        try {
            current = json.toValue(got.source(), call.type, call.index(), call.id());
            call.last = current;
            if (!call.deleteIf.test(current)) {
                call.done(call.outcome(got.index(), Outcome.Status.NOOP)
                        .value(current)
                        .version(got.seqNo(), got.primaryTerm(), got.version())
                        .build());
                return;
            }
        } catch (RuntimeException e) {
            call.fail(e);
            return;
        }
        DeleteResponse d = client.delete(r -> {
            r.index(got.index())
                    .id(call.id())
                    .ifSeqNo(got.seqNo())
                    .ifPrimaryTerm(got.primaryTerm())
                    .refresh(refresh);
            if (call.routing() != null) {
                r.routing(call.routing());
            }
            return r;
        });
        call.done(call.outcome(got.index(), Outcome.Status.DELETED)
                .value(current)
                .version(d.seqNo(), d.primaryTerm(), d.version())
                .build());
    }

    private void combined(List<OccCall<?>> batch, GetResponse<ObjectNode> got, ElasticsearchException noIndex)
            throws IOException {
        ObjectNode stored = got == null ? null : got.source();
        ObjectNode current = stored;
        boolean changed = false;
        for (OccCall<?> call : batch) {
            call.afterChange = changed;
            ObjectNode next = apply(call, current, noIndex);
            if (!call.finished() && call.status != Outcome.Status.NOOP && call.status != Outcome.Status.NOT_FOUND) {
                changed = true;
                current = next;
            }
        }
        if (!changed) {
            for (OccCall<?> call : batch) {
                if (!call.finished()) {
                    end(call, got == null ? call.index() : got.index(), -1, -1, -1, got);
                }
            }
            return;
        }
        OccCall<?> first = batch.get(0);
        ObjectNode tree = current;
        if (stored == null) {
            CreateResponse c = client.create(r -> {
                r.index(first.index()).id(first.id()).document(tree).refresh(refresh);
                if (first.routing() != null) {
                    r.routing(first.routing());
                }
                return r;
            });
            for (OccCall<?> call : batch) {
                if (!call.finished()) {
                    end(call, c.index(), c.seqNo(), c.primaryTerm(), c.version(), null);
                }
            }
        } else {
            IndexResponse w = client.index(i -> {
                i.index(got.index())
                        .id(first.id())
                        .document(tree)
                        .ifSeqNo(got.seqNo())
                        .ifPrimaryTerm(got.primaryTerm())
                        .refresh(refresh);
                if (first.routing() != null) {
                    i.routing(first.routing());
                }
                return i;
            });
            for (OccCall<?> call : batch) {
                if (!call.finished()) {
                    end(call, w.index(), w.seqNo(), w.primaryTerm(), w.version(), got);
                }
            }
        }
    }

    /** Applies one call's function to {@code current}; returns the value after it (or fails the call). */
    private <T> ObjectNode apply(OccCall<T> call, ObjectNode current, ElasticsearchException noIndex) {
        try {
            if (current == null) {
                if (call.initial == null) {
                    if (noIndex != null) {
                        call.fail(Errors.translate(call.what(), call.index(), call.id(), call.routing(), noIndex));
                    }
                    call.status = Outcome.Status.NOT_FOUND;
                    return null;
                }
                T created = Objects.requireNonNull(
                        call.fn.apply(
                                Objects.requireNonNull(call.initial.get(), "initial value supplier returned null")),
                        "the update function returned null");
                call.last = created;
                ObjectNode tree = json.toTree(created, call.index(), call.id());
                call.status = Outcome.Status.CREATED;
                return tree;
            }
            T value = json.toValue(current, call.type, call.index(), call.id());
            T next = Objects.requireNonNull(call.fn.apply(value), "the update function returned null");
            call.last = next;
            ObjectNode tree = json.toTree(next, call.index(), call.id());
            if (Json.sameSource(current, tree)) {
                call.status = Outcome.Status.NOOP;
                return current;
            }
            call.status = Outcome.Status.UPDATED;
            return tree;
        } catch (RuntimeException e) {
            call.fail(e);
            return current;
        }
    }

    /**
     * The outcome of a call whose attempt is over: {@code NOT_FOUND}; {@code NOOP} with the version read,
     * or the version written when an earlier call of the write changed what it saw; else the write's.
     */
    private static <T> void end(
            OccCall<T> call, String concrete, long seqNo, long term, long version, GetResponse<ObjectNode> read) {
        switch (call.status) {
            case NOT_FOUND ->
                call.done(call.outcome(call.index(), Outcome.Status.NOT_FOUND).build());
            case NOOP -> {
                if (call.afterChange || read == null) {
                    call.done(written(call, concrete, seqNo, term, version));
                } else {
                    call.done(call.outcome(read.index(), Outcome.Status.NOOP)
                            .value(call.last)
                            .version(read.seqNo(), read.primaryTerm(), read.version())
                            .build());
                }
            }
            default -> call.done(written(call, concrete, seqNo, term, version));
        }
    }

    /** The outcome of a call the attempt's write carried: its status and value, the write's version. */
    private static <T> Outcome<T> written(OccCall<T> call, String concrete, long seqNo, long term, long version) {
        return call.outcome(concrete, call.status)
                .value(call.last)
                .version(seqNo, term, version)
                .build();
    }

    /** A failure of the read or the write, charged to every call the attempt carried. */
    private Duration failed(List<OccCall<?>> batch, ElasticsearchException e) {
        Duration wait = Duration.ZERO;
        boolean conflict = e.status() == 409;
        for (OccCall<?> call : batch) {
            if (call.finished()) {
                continue;
            }
            call.lastFailure = e;
            if (conflict) {
                call.conflicts++;
                occ.conflict(call.index(), call.id(), call.attempts.attempt());
            } else if (!policy.retryOn().test(e)) {
                call.fail(Errors.translate(call.what(), call.index(), call.id(), call.routing(), e));
                continue;
            }
            Optional<Duration> delay = call.attempts.onFailure(e);
            if (delay.isPresent()) {
                wait = delay.get().compareTo(wait) > 0 ? delay.get() : wait;
            } else {
                call.stop(call.attempts.stopReason());
            }
        }
        return wait;
    }
}
