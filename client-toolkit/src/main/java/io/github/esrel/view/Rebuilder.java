package io.github.esrel.view;

import co.elastic.clients.elasticsearch._types.ElasticsearchException;
import co.elastic.clients.elasticsearch._types.ErrorCause;
import co.elastic.clients.elasticsearch._types.VersionType;
import co.elastic.clients.elasticsearch._types.query_dsl.Query;
import co.elastic.clients.elasticsearch.core.MgetResponse;
import co.elastic.clients.elasticsearch.core.bulk.BulkOperation;
import co.elastic.clients.elasticsearch.core.bulk.BulkResponseItem;
import co.elastic.clients.elasticsearch.core.get.GetResult;
import co.elastic.clients.elasticsearch.core.mget.MultiGetResponseItem;
import co.elastic.clients.elasticsearch.core.search.Hit;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.github.esrel.internal.Checks;
import io.github.esrel.internal.Reasons;
import io.github.esrel.internal.bulk.ConditionalWrites;
import io.github.esrel.retry.Failures;
import io.github.esrel.retry.StopReason;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * Rebuilds views whole from a snapshot of their sources, with the snapshot's clock value as the
 * external version. See {@link MaterializedView} for the protocol and its proof.
 */
final class Rebuilder {

    /** A source document to (re)build the view of. */
    record Ref(String id, @Nullable String routing) {
        Ref {
            Objects.requireNonNull(id, "id cannot be null");
        }

        /** The source a streamed hit is. */
        static Ref of(Hit<?> hit) {
            return new Ref(hit.id(), hit.routing());
        }
    }

    /** Identity of the versions a view is built from; equal stamps mean nothing changed in between. */
    record Stamp(
            boolean found,
            long seqNo,
            long primaryTerm,
            @Nullable String parentId,
            boolean parentFound,
            long parentSeqNo,
            long parentPrimaryTerm) {
        /** The stamp of a source as read (missing or not) and of its parent as read. */
        static Stamp of(
                GetResult<ObjectNode> source, @Nullable String parentId, @Nullable GetResult<ObjectNode> parent) {
            boolean found = source != null && source.found();
            return of(
                    found,
                    found ? seq(source.seqNo()) : -1,
                    found ? seq(source.primaryTerm()) : -1,
                    found ? parentId : null,
                    parent);
        }

        /** The stamp of a source as streamed (so it exists) and of its parent as read. */
        static Stamp of(Hit<ObjectNode> source, @Nullable String parentId, @Nullable GetResult<ObjectNode> parent) {
            return of(true, seq(source.seqNo()), seq(source.primaryTerm()), parentId, parent);
        }

        private static Stamp of(
                boolean found,
                long seqNo,
                long primaryTerm,
                @Nullable String parentId,
                @Nullable GetResult<ObjectNode> parent) {
            GetResult<ObjectNode> p = parent != null && parent.found() ? parent : null;
            return new Stamp(
                    found,
                    seqNo,
                    primaryTerm,
                    parentId,
                    p != null,
                    p != null ? seq(p.seqNo()) : -1,
                    p != null ? seq(p.primaryTerm()) : -1);
        }
    }

    /** Sources as read by one read. */
    record Snap(
            Ref ref,
            Stamp stamp,
            @Nullable ObjectNode source,
            @Nullable ObjectNode parent) {}

    /** A view ready to write: its document ({@code null} = delete) and its version. */
    record Prepared(Ref ref, long version, @Nullable ObjectNode document, Stamp stamp) {}

    private final ViewSettings settings;
    private final StateStore state;
    private final ViewComposer<?, ?> composer;
    private final ViewReads reads;

    Rebuilder(ViewSettings settings, StateStore state, ViewComposer<?, ?> composer, ViewReads reads) {
        this.settings = settings;
        this.state = state;
        this.composer = composer;
        this.reads = reads;
    }

    /**
     * Rebuilds the views of {@code refs}, in batches.
     *
     * @throws ViewException if the reads or writes of a batch fail as a whole
     */
    RebuildResult rebuild(List<Ref> refs) {
        return ViewCalls.call(() -> rebuildBatches(refs), "rebuilding " + refs.size() + " view(s)");
    }

    /**
     * Rebuilds the views of every source pointing to {@code parentId}, streamed in batches.
     *
     * @throws NullPointerException if {@code parentId} is {@code null}
     * @throws IllegalArgumentException if it is empty
     * @throws ViewException if the refresh, the stream or a batch fails as a whole
     */
    RebuildResult rebuildParent(String parentId) {
        Checks.id(parentId);
        long start = System.nanoTime();
        RebuildResult[] total = {RebuildResult.empty()};
        ViewCalls.run(
                () -> {
                    if (settings.refreshBeforeFanOut()) {
                        // The stream sees what is refreshed: without a refresh, a source that was just written or
                        // re-parented to this parent would be missed (see the class comment of MaterializedView).
                        settings.client().indices().refresh(r -> r.index(settings.sourceIndex()));
                    }
                    Query q = Query.of(
                            b -> b.term(t -> t.field(settings.parentIdField()).value(parentId)));
                    reads.stream(
                            settings.sourceIndex(),
                            q,
                            false,
                            List.of(),
                            page -> total[0] = total[0].plus(
                                    rebuildBatches(page.stream().map(Ref::of).toList())));
                },
                "rebuilding the views of parent " + parentId);
        return total[0].took(Duration.ofNanos(System.nanoTime() - start));
    }

    /** {@link #rebuild}, for callers that report a failure as a failure of their own operation. */
    RebuildResult rebuildBatches(List<Ref> refs) throws IOException {
        long start = System.nanoTime();
        RebuildResult total = RebuildResult.empty();
        for (int from = 0; from < refs.size(); from += settings.batchSize()) {
            List<Ref> batch = refs.subList(from, Math.min(refs.size(), from + settings.batchSize()));
            List<ViewFailure> failures = new ArrayList<>();
            Counts c = new Counts();
            List<Prepared> ready = prepare(batch, failures, c);
            RebuildResult r = write(ready, failures, c, batch.size());
            settings.tell(l -> l.afterBatch(r), "afterBatch");
            total = total.plus(r);
        }
        return total.took(Duration.ofNanos(System.nanoTime() - start));
    }

    /**
     * Reads consistent snapshots of the sources of {@code refs}: read everything, draw a clock value,
     * read the versions again; a view whose versions did not move gets the data of the first read and
     * the clock value as version. The others are read again, with a new clock value, up to
     * {@code maxRounds} times.
     */
    List<Prepared> prepare(List<Ref> refs, List<ViewFailure> failures, Counts c) throws IOException {
        List<Prepared> ready = new ArrayList<>();
        List<Snap> data = read(refs, true);
        for (int round = 1; !data.isEmpty(); round++) {
            long clock = state.tick();
            c.clockReads++;
            List<Snap> check = read(data.stream().map(Snap::ref).toList(), false);
            List<Ref> moved = new ArrayList<>();
            for (int i = 0; i < data.size(); i++) {
                Snap s = data.get(i);
                if (!s.stamp().equals(check.get(i).stamp())) {
                    moved.add(s.ref());
                    continue;
                }
                try {
                    ready.add(new Prepared(
                            s.ref(), clock, s.stamp().found() ? composer.compose(s, clock) : null, s.stamp()));
                } catch (RuntimeException e) {
                    failures.add(new ViewFailure(s.ref().id(), 0, "composing the view failed: " + e));
                }
            }
            if (moved.isEmpty()) {
                break;
            }
            c.retries += moved.size();
            if (round >= settings.maxRounds()) {
                for (Ref r : moved) {
                    failures.add(new ViewFailure(
                            r.id(),
                            0,
                            "its sources changed between the two reads of each of " + round
                                    + " snapshots; the intent stays for repair()"));
                }
                break;
            }
            data = read(moved, true);
        }
        return ready;
    }

    /** Writes prepared views with their external versions; resends 429s; 409 means a newer view won. */
    RebuildResult write(List<Prepared> ready, List<ViewFailure> failures, Counts c, int requested) throws IOException {
        long start = System.nanoTime();
        ConditionalWrites<Prepared> writes = ConditionalWrites.builder(this::operation)
                .client(settings.client())
                .retryPolicy(settings.retryPolicy())
                // The credentials may not write the view index at all: not one view's problem. Failing the call says
                // so; the intents stay, and a repair with the right privileges converges.
                .abortOnDenied(true)
                .listener(new ConditionalWrites.Listener<>() {
                    @Override
                    public void onWritten(Prepared p, BulkResponseItem response) {
                        if (p.document() == null) {
                            c.deleted++;
                        } else {
                            c.written++;
                        }
                    }

                    @Override
                    public void onConflict(Prepared p, int attempt, boolean finalOutcome) {
                        c.stale++;
                        settings.tell(l -> l.onStale(p.ref().id(), p.version()), "onStale");
                    }

                    @Override
                    public void onGaveUp(Prepared p, StopReason stop, ElasticsearchException last) {
                        failures.add(new ViewFailure(
                                p.ref().id(), last.status(), "still rejected after retries: " + Reasons.of(last)));
                    }

                    @Override
                    public void onFailed(Prepared p, ElasticsearchException failure) {
                        failures.add(new ViewFailure(p.ref().id(), failure.status(), Reasons.of(failure)));
                    }

                    @Override
                    public void onInterrupted(List<Prepared> pending) {
                        for (Prepared p : pending) {
                            failures.add(new ViewFailure(p.ref().id(), 429, "interrupted while waiting to resend"));
                        }
                    }
                })
                .build();
        writes.write(ready);
        for (ViewFailure f : failures) {
            settings.tell(l -> l.onFailure(f), "onFailure");
        }
        return new RebuildResult(
                requested,
                c.written,
                c.deleted,
                c.stale,
                failures.size(),
                c.clockReads,
                c.retries,
                failures.size() > 100 ? failures.subList(0, 100) : failures,
                Duration.ofNanos(System.nanoTime() - start));
    }

    private BulkOperation operation(Prepared p) {
        if (p.document() == null) {
            return BulkOperation.of(o -> o.delete(d -> d.index(settings.viewIndex())
                    .id(p.ref().id())
                    .version(p.version())
                    .versionType(VersionType.External)));
        }
        return BulkOperation.of(o -> o.index(x -> x.index(settings.viewIndex())
                .id(p.ref().id())
                .version(p.version())
                .versionType(VersionType.External)
                .document(p.document())));
    }

    /**
     * Reads the sources of {@code refs} and then their parents (always in that order): whole documents,
     * or only what the stamps need.
     */
    List<Snap> read(List<Ref> refs, boolean whole) throws IOException {
        String sourceIndex = settings.sourceIndex();
        MgetResponse<ObjectNode> sources =
                reads.mget(sourceIndex, refs, whole ? null : List.of(settings.parentIdField()));
        List<GetResult<ObjectNode>> src = new ArrayList<>(refs.size());
        Set<String> parentIds = new LinkedHashSet<>();
        for (int i = 0; i < refs.size(); i++) {
            GetResult<ObjectNode> g =
                    result(sources.docs().get(i), sourceIndex, refs.get(i).id());
            src.add(g);
            if (g.found()) {
                String pid = settings.parentIdOf(g.source());
                if (pid != null) {
                    parentIds.add(pid);
                }
            }
        }
        Map<String, GetResult<ObjectNode>> parents = new HashMap<>();
        if (!parentIds.isEmpty()) {
            List<Ref> prefs = parentIds.stream().map(id -> new Ref(id, null)).toList();
            MgetResponse<ObjectNode> got = reads.mget(settings.parentIndex(), prefs, whole ? null : List.of());
            for (int i = 0; i < prefs.size(); i++) {
                parents.put(
                        prefs.get(i).id(),
                        result(
                                got.docs().get(i),
                                settings.parentIndex(),
                                prefs.get(i).id()));
            }
        }
        List<Snap> snaps = new ArrayList<>(refs.size());
        for (int i = 0; i < refs.size(); i++) {
            GetResult<ObjectNode> g = src.get(i);
            String pid = g.found() ? settings.parentIdOf(g.source()) : null;
            GetResult<ObjectNode> parent = pid == null ? null : parents.get(pid);
            snaps.add(new Snap(
                    refs.get(i),
                    Stamp.of(g, pid, parent),
                    g.found() ? g.source() : null,
                    parent != null && parent.found() ? parent.source() : null));
        }
        return snaps;
    }

    private static GetResult<ObjectNode> result(MultiGetResponseItem<ObjectNode> item, String index, String id) {
        if (item.isFailure()) {
            ErrorCause e = item.failure().error();
            throw new ViewException(
                    "reading [" + index + "][" + id + "] failed: " + Reasons.of(e), Failures.statusOf(e), null);
        }
        return item.result();
    }

    /** A sequence number, primary term or version as a long; -1 where Elasticsearch sent none. */
    static long seq(Long v) {
        return v == null ? -1 : v;
    }

    /** Counters of one batch. */
    static final class Counts {
        long written;
        long deleted;
        long stale;
        long clockReads;
        long retries;
    }
}
