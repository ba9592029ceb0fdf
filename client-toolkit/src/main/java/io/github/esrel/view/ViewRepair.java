package io.github.esrel.view;

import co.elastic.clients.elasticsearch.core.MgetResponse;
import co.elastic.clients.elasticsearch.core.get.GetResult;
import co.elastic.clients.elasticsearch.core.search.Hit;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.github.esrel.doc.DocRef;
import io.github.esrel.internal.Indices;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Brings views back in line with their sources after a crash or a failed rebuild: finishes intents
 * (the writer's own second step and a repair's replay are the same operation, so they share
 * {@link #complete}), and sweeps every source and view for the changes no intent covers. Everything it
 * writes is an ordinary rebuild, safe to run while writers are live.
 */
final class ViewRepair {

    private static final Logger log = LoggerFactory.getLogger(ViewRepair.class);

    private final ViewSettings settings;
    private final StateStore state;
    private final Rebuilder rebuilder;
    private final ViewReads reads;
    private final ViewComposer<?, ?> composer;

    ViewRepair(
            ViewSettings settings,
            StateStore state,
            Rebuilder rebuilder,
            ViewReads reads,
            ViewComposer<?, ?> composer) {
        this.settings = settings;
        this.state = state;
        this.rebuilder = rebuilder;
        this.reads = reads;
        this.composer = composer;
    }

    /** Rebuilds what the intent covers and clears it if every view was rebuilt. */
    RebuildResult complete(Intent intent) {
        RebuildResult r = intent.target() == Intent.Target.SOURCE
                ? rebuilder.rebuild(List.of(sourceOf(intent)))
                : rebuilder.rebuildParent(intent.targetId());
        if (r.complete()) {
            ViewCalls.run(() -> state.clear(intent), "clearing intent " + intent.id());
            settings.tell(l -> l.onIntentCleared(intent), "onIntentCleared");
        }
        return r;
    }

    /** The intent's source, checked as a caller's reference is (the intent is read back from an index). */
    private static Rebuilder.Ref sourceOf(Intent intent) {
        DocRef source = DocRef.id(intent.targetId()).withRouting(intent.routing());
        return new Rebuilder.Ref(source.id(), source.routing());
    }

    /** {@link #replayIntents} of all, then {@link #sweep}; see {@link MaterializedView#repair()}. */
    RepairReport repair() {
        long start = System.nanoTime();
        RepairReport intents = replayIntents(Duration.ZERO);
        RepairReport sweep = sweep();
        return new RepairReport(
                intents.intentsReplayed(),
                sweep.sourcesChecked(),
                sweep.lagging(),
                sweep.viewsChecked(),
                sweep.orphans(),
                intents.rebuild().plus(sweep.rebuild()),
                Duration.ofNanos(System.nanoTime() - start));
    }

    /** See {@link MaterializedView#replayIntents(Duration)}. */
    RepairReport replayIntents(Duration olderThan) {
        long start = System.nanoTime();
        long[] replayed = {0};
        RebuildResult[] total = {RebuildResult.empty()};
        ViewCalls.run(
                () -> state.intents(
                        settings.clock().instant().minus(olderThan),
                        page -> {
                            for (Intent intent : page) {
                                total[0] = total[0].plus(complete(intent));
                                replayed[0]++;
                                settings.tell(l -> l.onIntentReplayed(intent), "onIntentReplayed");
                            }
                        },
                        true),
                "replaying intents");
        try {
            state.collect();
        } catch (IOException | RuntimeException e) {
            // Housekeeping, not the repair's result: the next repair, or a change's clear, collects them.
            log.warn("collecting the cleared intents of view [{}] failed: {}", settings.name(), e.toString());
        }
        return new RepairReport(replayed[0], 0, 0, 0, 0, total[0], Duration.ofNanos(System.nanoTime() - start));
    }

    /** See {@link MaterializedView#pendingIntents()}. */
    List<Intent> pendingIntents() {
        List<Intent> all = new ArrayList<>();
        // All of them: the bound is a second ahead so that it also takes in an intent recorded this very
        // millisecond, or by a writer whose clock runs slightly ahead of this one's.
        ViewCalls.run(
                () -> state.intents(settings.clock().instant().plusSeconds(1), all::addAll, false), "listing intents");
        return all;
    }

    /** See {@link MaterializedView#sweep()}. */
    RepairReport sweep() {
        long start = System.nanoTime();
        Sweep sweep = new Sweep();
        ViewCalls.run(
                () -> {
                    // The streams are point-in-time snapshots of what is refreshed: refresh first, or the sweep
                    // compares
                    // views with sources as they were up to a refresh interval ago (and misses new views entirely).
                    settings.client().indices().refresh(r -> r.index(settings.sourceIndex()));
                    reads.stream(
                            settings.sourceIndex(),
                            null,
                            true,
                            List.of(settings.parentIdField()),
                            page -> rebuildLagging(page, sweep));
                    if (Indices.exists(settings.client(), settings.viewIndex())) {
                        settings.client().indices().refresh(r -> r.index(settings.viewIndex()));
                        reads.stream(
                                settings.viewIndex(),
                                null,
                                true,
                                List.of(composer.routingPath()),
                                page -> deleteOrphans(page, sweep));
                    }
                },
                "sweeping views");
        return new RepairReport(
                0,
                sweep.sourcesChecked,
                sweep.lagging,
                sweep.viewsChecked,
                sweep.orphans,
                sweep.rebuild,
                Duration.ofNanos(System.nanoTime() - start));
    }

    /** Rebuilds the views of a page of sources that are missing or were built from other versions than the current ones. */
    private void rebuildLagging(List<Hit<ObjectNode>> sources, Sweep sweep) throws IOException {
        sweep.sourcesChecked += sources.size();
        Map<String, Rebuilder.Stamp> built =
                builtFrom(sources.stream().map(Rebuilder.Ref::of).toList());
        Map<String, GetResult<ObjectNode>> parents = parentsOf(sources);
        List<Rebuilder.Ref> lagging = new ArrayList<>();
        for (Hit<ObjectNode> h : sources) {
            String pid = settings.parentIdOf(h.source());
            Rebuilder.Stamp now = Rebuilder.Stamp.of(h, pid, pid == null ? null : parents.get(pid));
            if (!now.equals(built.get(h.id()))) {
                lagging.add(Rebuilder.Ref.of(h));
            }
        }
        sweep.lagging += lagging.size();
        if (!lagging.isEmpty()) {
            sweep.rebuild = sweep.rebuild.plus(rebuilder.rebuildBatches(lagging));
        }
    }

    /** The versions the stored views of {@code sources} were built from, by view id; none for a view not stored. */
    private Map<String, Rebuilder.Stamp> builtFrom(List<Rebuilder.Ref> sources) throws IOException {
        Map<String, Rebuilder.Stamp> stamps = new HashMap<>();
        if (!Indices.exists(settings.client(), settings.viewIndex())) {
            return stamps;
        }
        MgetResponse<ObjectNode> got = reads.mget(
                settings.viewIndex(),
                sources.stream().map(r -> new Rebuilder.Ref(r.id(), null)).toList(),
                List.of(composer.metaField()));
        for (int i = 0; i < sources.size(); i++) {
            var d = got.docs().get(i);
            if (!d.isFailure() && d.result().found()) {
                stamps.put(sources.get(i).id(), composer.builtFrom(d.result().source()));
            }
        }
        return stamps;
    }

    /** The parents the sources name, as read now ({@code null} for one that could not be read: its views count as lagging). */
    private Map<String, GetResult<ObjectNode>> parentsOf(List<Hit<ObjectNode>> sources) throws IOException {
        List<Rebuilder.Ref> parentRefs = sources.stream()
                .map(h -> settings.parentIdOf(h.source()))
                .filter(Objects::nonNull)
                .distinct()
                .map(id -> new Rebuilder.Ref(id, null))
                .toList();
        Map<String, GetResult<ObjectNode>> parents = new HashMap<>();
        if (!parentRefs.isEmpty()) {
            MgetResponse<ObjectNode> got = reads.mget(settings.parentIndex(), parentRefs, List.of());
            for (int i = 0; i < parentRefs.size(); i++) {
                parents.put(
                        parentRefs.get(i).id(),
                        got.docs().get(i).isFailure() ? null : got.docs().get(i).result());
            }
        }
        return parents;
    }

    /** Deletes (by rebuilding) the views of a page whose source is gone. */
    private void deleteOrphans(List<Hit<ObjectNode>> views, Sweep sweep) throws IOException {
        sweep.viewsChecked += views.size();
        List<Rebuilder.Ref> sources =
                views.stream().map(h -> composer.sourceOf(h.id(), h.source())).toList();
        MgetResponse<ObjectNode> got = reads.mget(settings.sourceIndex(), sources, List.of());
        List<Rebuilder.Ref> orphans = new ArrayList<>();
        for (int i = 0; i < sources.size(); i++) {
            // A failed read proves nothing: only a source known to be gone makes an orphan.
            if (!got.docs().get(i).isFailure() && !got.docs().get(i).result().found()) {
                orphans.add(sources.get(i));
            }
        }
        sweep.orphans += orphans.size();
        if (!orphans.isEmpty()) {
            sweep.rebuild = sweep.rebuild.plus(rebuilder.rebuildBatches(orphans));
        }
    }

    /** What one sweep counted and rebuilt so far. */
    private static final class Sweep {
        long sourcesChecked;
        long lagging;
        long viewsChecked;
        long orphans;
        RebuildResult rebuild = RebuildResult.empty();
    }
}
