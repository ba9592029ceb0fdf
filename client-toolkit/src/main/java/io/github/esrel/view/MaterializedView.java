package io.github.esrel.view;

import co.elastic.clients.elasticsearch.ElasticsearchClient;
import co.elastic.clients.elasticsearch.core.GetResponse;
import co.elastic.clients.elasticsearch.core.MgetResponse;
import co.elastic.clients.elasticsearch.core.SearchRequest;
import co.elastic.clients.elasticsearch.core.SearchResponse;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.github.esrel.doc.DocRef;
import io.github.esrel.doc.DocumentConverter;
import io.github.esrel.internal.Checks;
import io.github.esrel.internal.Clients;
import io.github.esrel.internal.ShardFailures;
import io.github.esrel.occ.Versioned;
import io.github.esrel.retry.Backoff;
import io.github.esrel.retry.Failures;
import io.github.esrel.retry.RetryPolicy;
import java.lang.management.ManagementFactory;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.BiFunction;
import java.util.function.Function;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * A materialized view (seed 003 parts 2 and 3): one view document per "many"-side source document
 * (a photo), holding everything needed to query it with attributes of its "one"-side parent (the
 * photo's user): {@code PhotoUserView} = all photo fields + copies of user fields. The view is always
 * rebuilt <em>whole</em> from the current sources, never patched field by field, so two rebuilds that
 * race cannot mix their fields.
 *
 * <pre>{@code
 * MaterializedView<Photo, User> views = MaterializedView.of(Photo.class, User.class, v -> v
 *     .client(es).name("photo-user")
 *     .sourceIndex("photos").parentIndex("users").parentIdField("user_id")
 *     .viewIndex("photo-user-view")
 *     .copyParent("gender", "user_gender"));                 // or .compose((photo, user) -> ...)
 *
 * views.changeSource("p1", () -> es.index(i -> i.index("photos").id("p1").document(photo)));
 * views.changeParent("u1", () -> es.index(i -> i.index("users").id("u1").document(user)));
 * ViewPage<Photo> page = views.search(s -> s.query(q -> q.term(t -> t.field("user_gender").value("female"))));
 * views.repair();                                            // after a crash: replay intents, sweep laggards
 * }</pre>
 *
 * <h2>A stale rebuild can never overwrite a newer one</h2>
 * Views are written with {@code version_type=external}. The version is a <b>clock value at which the
 * view's sources were read consistently</b>:
 * <ol>
 *   <li>read the source and then its parent (realtime {@code _mget}s: {@code _seq_no} and
 *       {@code _primary_term} of each, the parent's identity from the source);</li>
 *   <li>draw {@code g} from the clock: the {@code _seq_no} of a write to the one-shard state index;</li>
 *   <li>read the same stamps again. If nothing moved, the data of step 1 was the state of the sources
 *       at the instant {@code τ(g)} the clock write was sequenced (the source did not change on an
 *       interval containing τ, and neither did the parent it named); write the view with version
 *       {@code g}. If something moved, read again and draw a new {@code g}.</li>
 * </ol>
 * <b>Claim 1: a higher version carries a snapshot at least as new.</b> The state index has one shard,
 * whose primary assigns sequence numbers in the order it processes operations, and a new primary after
 * a failover continues above every acknowledged one; so {@code g1 < g2} implies {@code τ(g1) < τ(g2)}.
 * Source documents only move forward in time, so the snapshot at {@code τ(g2)} is the same or newer
 * than the one at {@code τ(g1)}, for both sides and for the parent's identity alike.
 * <br><b>Claim 2: two rebuilds in any order leave the newer snapshot.</b> Elasticsearch accepts an
 * external version only if it is strictly greater than the stored one. Written in order
 * {@code g1, g2} both are applied and {@code g2} stays; in order {@code g2, g1} the second write is
 * refused (409, reported as {@code stale}). Either way the view holds the snapshot of {@code g2}, the
 * newer one by claim 1. By induction, any set of rebuilds in any order leaves the one with the largest
 * version, which is the newest snapshot read.
 * <br><b>Claim 3: the version grows with every change of either side, and with re-parenting.</b> Any
 * change is followed by a rebuild (below) whose clock write starts after the change completed, so its
 * {@code g} is larger than any drawn before, whatever the change was. Re-parenting a photo to a user
 * with a much smaller {@code _version} or {@code _seq_no} cannot lower the view's version, because the
 * version does not depend on any source's counter at all; the source counters are used only to check
 * that nothing moved between the two reads.
 * <br><b>Why not a sum of the sources' versions.</b> {@code photo._version + user._version} (or
 * seq_nos) grows with edits of either side but falls when the photo moves from a user with version 50
 * to one with version 2: the old view (built with the first user) would then beat every new one. A
 * pair ordered photo-first would be right, but pairs of unbounded counters cannot be packed into one
 * 63-bit number in order, and a deleted parent has no version to read at all. The clock has neither
 * problem, and costs one small write per batch of views.
 * <br>Limits: the state index must keep exactly one shard (checked) and must not be deleted while views
 * exist (a new clock starts at 0 and every rebuild would be refused as stale: delete the views too).
 * A view deleted because its source is gone keeps a version tombstone only for the view index's
 * {@code index.gc_deletes} (default 60 s); a rebuild delayed longer than that could bring it back,
 * and the next {@link #sweep()} deletes it again.
 *
 * <h2>Crash safety</h2>
 * {@link #changeSource} and {@link #changeParent} record an {@link Intent} durably in the state index
 * <em>before</em> running the source write, rebuild the affected views after it, and clear the intent.
 * A crash (even {@code kill -9}) between the write and the rebuild leaves the intent:
 * {@link #repair()} replays every unfinished intent and then sweeps all sources for views that are
 * missing, built from older versions than the current ones, or orphaned. Replays and sweeps are
 * ordinary rebuilds, so running them while writers are live is safe. No delays anywhere.
 * Where the source write happens elsewhere, use {@link #beginSourceChange} / {@link #complete} around
 * it. A parent change rebuilds the views of all sources pointing to it: the source index is refreshed
 * and those sources are streamed (point in time), so a source re-parented just before is not missed.
 *
 * <h2>Requests applied twice, or late</h2>
 * A request can reach Elasticsearch more than once: the low-level client or a load balancer sends it again after
 * an I/O error, and a node that was frozen (a long GC pause, a VM migration) can run a copy it held after the
 * caller was told of a failure and went on. Every write of a view is safe against both:
 * <ul>
 *   <li><b>View writes and deletes</b> carry their clock value as external version: a copy is refused once anything
 *       at least as new was written (claim 2), and a copy applied before that writes the same snapshot again. The
 *       one exception is the tombstone limit above: a copy delayed past {@code index.gc_deletes} after its view was
 *       deleted brings the view back until the next {@link #sweep()}; raise the view index's
 *       {@code index.gc_deletes} where nodes may stay frozen longer.</li>
 *   <li><b>Clock writes</b> only use up a sequence number: the clock needs values that rise, not consecutive ones.</li>
 *   <li><b>Intents</b> never come back once cleared. An intent is written create-only ({@code op_type=create})
 *       under an id of its own, and cleared by rewriting it as a marker ({@code "kind": "cleared"}) instead of
 *       deleting it: the id stays taken, so a copy of the intent's request run after the clear is refused (409).
 *       A delete would not do: Elasticsearch forgets a delete after {@code index.gc_deletes} (60 s by default), and
 *       a create-only write of a deleted id succeeds anyway. Markers are kept for {@link Builder#intentRetention}
 *       (10 minutes by default), then deleted; before deleting them, the view's floor in the state index is raised
 *       to the oldest intent still pending, or the retention's start if that is older. A copy that arrives after
 *       its marker is gone carries its original {@code created_at}, below the floor: it is recognised as stale,
 *       never listed by {@link #pendingIntents()}, and deleted by {@link #repair()}. No pending intent is below the
 *       floor (it never passes one), as long as the writers' clocks and the wait for an intent's answer stay well
 *       within the retention. Only while an older intent stays pending (a crash no repair has replayed yet) can a
 *       late copy come back as pending, and then its replay is harmless: it rebuilds from the current sources.</li>
 * </ul>
 * The intent request whose answer is lost fails the change ({@link ViewException}) before the source write is made;
 * the intent may have been recorded all the same, and a repair replays and clears it (a harmless rebuild).
 *
 * <p>Thread-safe. Sources, parents and composed documents are mapped to and from {@code S} and {@code P} with the
 * client's own JSON mapper (a {@code JacksonJsonpMapper}'s {@code ObjectMapper}, Spring Boot 4's
 * {@code Jackson3JsonpMapper}, any mapper that maps those classes), or the {@link Builder#documentConverter
 * DocumentConverter} given; {@code ObjectNode} needs none. A view document is the view's own, rebuilt whole from its
 * source and parent: the default composition ({@link Builder#copyParent}) starts from the source's whole JSON, fields
 * the source's class does not map included; a {@link Builder#compose} function decides what the view holds.
 *
 * @param <S> the type of the source ("many"-side) documents
 * @param <P> the type of the parent ("one"-side) documents
 */
public final class MaterializedView<S, P> {

    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9_-]{1,100}");

    /**
     * A source write run by {@link #changeSource} / {@link #changeParent}.
     *
     * @param <R> the type of the write's result (the client's response, say)
     */
    @FunctionalInterface
    public interface Write<R> {
        /**
         * Makes the write, once, on the calling thread.
         *
         * @return the write's result, handed back in {@link ViewChange#result()}; may be {@code null}
         * @throws Exception if the write fails; the view is rebuilt from what is stored anyway and
         *     the exception becomes the cause of a {@link ViewException}
         */
        R run() throws Exception;
    }

    // Only what callers see lives here. The work is in the classes below, which are handed the settings
    // record instead of reading this class's fields, so that each can be read and tested on its own.
    private final ViewSettings settings;
    private final ViewComposer<S, P> composer;
    private final StateStore state;
    private final ViewReads reads;
    private final Rebuilder rebuilder;
    private final ViewRepair repair;

    private MaterializedView(Builder<S, P> b) {
        ElasticsearchClient client = Clients.internal(Objects.requireNonNull(b.client, "client cannot be null"));
        // The required settings are checked in the order (and with the messages) of ViewSettings's own checks.
        this.settings = new ViewSettings(
                client,
                Objects.requireNonNull(b.name, "name cannot be null"),
                Objects.requireNonNull(b.sourceIndex, "sourceIndex cannot be null"),
                Objects.requireNonNull(b.parentIndex, "parentIndex cannot be null"),
                Objects.requireNonNull(b.viewIndex, "viewIndex cannot be null"),
                Objects.requireNonNull(b.parentIdField, "parentIdField cannot be null"),
                b.stateIndex,
                b.metaField,
                b.batchSize,
                b.maxRounds,
                b.retryPolicy,
                b.retryPolicy.toBuilder().retryOn(Failures.rejected()).build(),
                b.listener,
                b.refreshBeforeFanOut,
                b.intentRetention,
                b.clock);
        this.composer = new ViewComposer<>(
                settings.name(),
                settings.metaField(),
                b.sourceType,
                b.parentType,
                b.copies,
                b.composer,
                b.converter != null ? b.converter : DocumentConverter.of(b.client._jsonpMapper()),
                settings.sourceIndex(),
                settings.parentIndex());
        this.state = new StateStore(
                client,
                settings.stateIndex(),
                settings.name(),
                ManagementFactory.getRuntimeMXBean().getName(),
                settings.intentRetention(),
                settings.clock());
        this.reads = new ViewReads(settings);
        this.rebuilder = new Rebuilder(settings, state, composer, reads);
        this.repair = new ViewRepair(settings, state, rebuilder, reads, composer);
    }

    /**
     * Builds a view over sources of type {@code S} and parents of type {@code P} (ObjectNode works for
     * both). Building touches no index: the state index is created on first use (or by
     * {@link #ensureStateIndex()}); the first entry point built on a client's transport sends it one
     * request ({@code GET /}) to check that the server accepts this client line.
     *
     * @param sourceType the class source documents are mapped to (for {@link #search} and
     *     {@link Builder#compose})
     * @param parentType the class parent documents are mapped to (for {@link Builder#compose})
     * @param fn sets the view up on a fresh builder and returns it
     * @param <S> the source type
     * @param <P> the parent type
     * @return the view
     * @throws NullPointerException if a type is {@code null} or a required setting is missing
     * @throws IllegalArgumentException if the view copies nothing from the parent, mixes
     *     {@link Builder#copyParent} with {@link Builder#compose}, or esrel cannot send its own JSON
     *     through the client (a transport of the application's making without a Jackson 2 mapper)
     * @throws IllegalStateException if the server refuses this client line's requests (a server of
     *     another major version)
     */
    public static <S, P> MaterializedView<S, P> of(
            Class<S> sourceType, @Nullable Class<P> parentType, @Nullable Function<Builder<S, P>, Builder<S, P>> fn) {
        return Objects.requireNonNull(fn, "fn cannot be null")
                .apply(new Builder<>(sourceType, parentType))
                .build();
    }

    /**
     * Starts a view; see {@link Builder} for the required settings.
     *
     * @param sourceType the class source documents are mapped to
     * @param parentType the class parent documents are mapped to
     * @param <S> the source type
     * @param <P> the parent type
     * @return a new builder with the defaults
     * @throws NullPointerException if a type is {@code null}
     */
    public static <S, P> Builder<S, P> builder(Class<S> sourceType, Class<P> parentType) {
        return new Builder<>(sourceType, parentType);
    }

    /**
     * Returns the view's name, which keys its clock and intents in the state index.
     *
     * @return the name given to {@link Builder#name}
     */
    public String name() {
        return settings.name();
    }

    /**
     * Returns the index the view documents are written to.
     *
     * @return the view index given to {@link Builder#viewIndex}
     */
    public String viewIndex() {
        return settings.viewIndex();
    }

    /**
     * Creates the state index now if it does not exist (otherwise the first write or rebuild creates it)
     * and checks that it has one shard.
     *
     * @throws ViewException if it cannot be created or has more than one shard
     */
    public void ensureStateIndex() {
        ViewCalls.run(state::ensure, "creating the state index " + state.index());
    }

    // --- writes through the view ------------------------------------------------------------------

    /**
     * {@link #changeSource(DocRef, Write)} for a source routed by its id.
     *
     * @param sourceId the id of the source document the write changes
     * @param write the source write, run once
     * @param <R> the type of the write's result
     * @return the write's result and the rebuild's, as {@link #changeSource(DocRef, Write)}
     * @throws ViewException as {@link #changeSource(DocRef, Write)}
     * @throws NullPointerException if {@code sourceId} is {@code null}
     * @throws IllegalArgumentException if {@code sourceId} is empty
     */
    public <R> ViewChange<R> changeSource(String sourceId, Write<R> write) {
        return changeSource(DocRef.id(sourceId), write);
    }

    /**
     * Records an intent, runs {@code write} (which changes, creates, deletes or re-parents the source
     * document), rebuilds its view and clears the intent. If the write throws, the view is
     * rebuilt from whatever is stored (the write may have been applied before it failed) and the failure
     * is rethrown as a {@link ViewException} with the write's exception as cause.
     *
     * @param source the source document the write changes, e.g. {@code DocRef.id("p1").withRouting("u1")}
     *     (a reference naming an index must name the source index)
     * @param write the source write, run once after the intent is recorded
     * @param <R> the type of the write's result
     * @return the write's result and the rebuild's; when the rebuild did not complete, the intent stays
     *     for {@link #repair()} ({@link ViewChange#intentCleared()} is false)
     * @throws ViewException if the write fails, or the intent cannot be recorded (then the write did
     *     not run), or the rebuild fails as a whole (the intent stays)
     * @throws NullPointerException if {@code source} is {@code null}
     * @throws IllegalArgumentException if {@code source} names an index other than the source index
     */
    public <R> ViewChange<R> changeSource(DocRef source, Write<R> write) {
        return change(beginSourceChange(source), write);
    }

    /**
     * Like {@link #changeSource} for a write of parent {@code parentId}: afterwards the views of every
     * source pointing to it are rebuilt (streamed, in batches).
     *
     * @param parentId the id of the parent document the write changes
     * @param write the parent write, run once after the intent is recorded
     * @param <R> the type of the write's result
     * @return the write's result and the rebuild's; when the rebuild did not complete, the intent stays
     *     for {@link #repair()} ({@link ViewChange#intentCleared()} is false)
     * @throws ViewException if the write fails, or the intent cannot be recorded (then the write did
     *     not run), or the rebuild fails as a whole (the intent stays)
     * @throws NullPointerException if {@code parentId} is {@code null}
     * @throws IllegalArgumentException if {@code parentId} is empty
     */
    public <R> ViewChange<R> changeParent(String parentId, Write<R> write) {
        return change(beginParentChange(parentId), write);
    }

    /**
     * {@link #beginSourceChange(DocRef)} for a source routed by its id.
     *
     * @param sourceId the id of the source document about to be written
     * @return the recorded intent, to pass to {@link #complete}
     * @throws ViewException if the intent cannot be recorded (do not make the write then)
     * @throws NullPointerException if {@code sourceId} is {@code null}
     * @throws IllegalArgumentException if {@code sourceId} is empty
     */
    public Intent beginSourceChange(String sourceId) {
        return beginSourceChange(DocRef.id(sourceId));
    }

    /**
     * Step 1 of 2 for a source write made elsewhere: records the intent durably. Make the write, then
     * call {@link #complete}. If the process dies in between, {@link #repair()} finishes the job.
     *
     * @param source the source document about to be written (a reference naming an index must name the
     *     source index)
     * @return the recorded intent, to pass to {@link #complete}
     * @throws ViewException if the intent cannot be recorded (do not make the write then)
     * @throws NullPointerException if {@code source} is {@code null}
     * @throws IllegalArgumentException if {@code source} names an index other than the source index
     */
    public Intent beginSourceChange(DocRef source) {
        DocRef s = inSource(source);
        return recorded(ViewCalls.call(
                () -> state.record(Intent.Target.SOURCE, s.id(), s.routing()), "recording an intent for source " + s));
    }

    /**
     * Step 1 of 2 for a parent write made elsewhere: records the intent durably. Make the write, then
     * call {@link #complete}.
     *
     * @param parentId the id of the parent document about to be written
     * @return the recorded intent, to pass to {@link #complete}
     * @throws ViewException if the intent cannot be recorded (do not make the write then)
     * @throws NullPointerException if {@code parentId} is {@code null}
     * @throws IllegalArgumentException if {@code parentId} is empty
     */
    public Intent beginParentChange(String parentId) {
        Checks.id(parentId);
        return recorded(ViewCalls.call(
                () -> state.record(Intent.Target.PARENT, parentId, null),
                "recording an intent for parent " + parentId));
    }

    private Intent recorded(Intent intent) {
        settings.tell(l -> l.onIntentRecorded(intent), "onIntentRecorded");
        return intent;
    }

    /**
     * Step 2 of 2: rebuilds what the intent covers and clears it if every view was rebuilt.
     *
     * @param intent the intent from {@link #beginSourceChange} or {@link #beginParentChange}, or one
     *     from {@link #pendingIntents()}
     * @return what the rebuild did; the intent was cleared when {@link RebuildResult#complete()}
     * @throws NullPointerException if {@code intent} is {@code null}
     * @throws ViewException if the rebuild fails as a whole (the intent stays)
     */
    public RebuildResult complete(Intent intent) {
        return repair.complete(Objects.requireNonNull(intent, "intent cannot be null"));
    }

    private <R> ViewChange<R> change(Intent intent, Write<R> write) {
        R result;
        try {
            result = write.run();
        } catch (Exception e) {
            ViewException failure = new ViewException(
                    "the source write covered by intent " + intent.id() + " failed: " + e
                            + " (the view was rebuilt from what is stored)",
                    Failures.status(e),
                    e);
            try {
                complete(intent);
            } catch (RuntimeException again) {
                failure.addSuppressed(again);
            }
            throw failure;
        }
        RebuildResult r = complete(intent);
        return new ViewChange<>(result, r, intent.id(), r.complete());
    }

    // --- rebuilds ---------------------------------------------------------------------------------

    /**
     * Rebuilds the view of one source routed by its id (deletes the view if the source is gone).
     *
     * @param sourceId the source document's id
     * @return what the rebuild did
     * @throws ViewException if the reads or the write fail as a whole
     * @throws NullPointerException if {@code sourceId} is {@code null}
     * @throws IllegalArgumentException if {@code sourceId} is empty
     */
    public RebuildResult rebuild(String sourceId) {
        return rebuild(DocRef.id(sourceId));
    }

    /**
     * Rebuilds the view of one source (deletes the view if the source is gone).
     *
     * @param source the source document (a reference naming an index must name the source index)
     * @return what the rebuild did
     * @throws ViewException if the reads or the write fail as a whole
     * @throws NullPointerException if {@code source} is {@code null}
     * @throws IllegalArgumentException if {@code source} names an index other than the source index
     */
    public RebuildResult rebuild(DocRef source) {
        DocRef s = inSource(source);
        return rebuilder.rebuild(List.of(new Rebuilder.Ref(s.id(), s.routing())));
    }

    /**
     * Rebuilds the views of sources routed by their ids, in batches of {@link Builder#batchSize}.
     *
     * @param sourceIds the source documents' ids; empty rebuilds nothing
     * @return what the rebuilds did, summed over the batches
     * @throws ViewException if the reads or writes of a batch fail as a whole
     * @throws NullPointerException if {@code sourceIds} is {@code null}
     */
    public RebuildResult rebuild(Collection<String> sourceIds) {
        List<Rebuilder.Ref> refs = new ArrayList<>(sourceIds.size());
        sourceIds.forEach(id -> refs.add(new Rebuilder.Ref(DocRef.id(id).id(), null)));
        return rebuilder.rebuild(refs);
    }

    /**
     * Rebuilds the views of sources, routed or not, in batches of {@link Builder#batchSize}.
     *
     * @param sources the source documents (references naming an index must name the source index); empty
     *     rebuilds nothing
     * @return what the rebuilds did, summed over the batches
     * @throws ViewException if the reads or writes of a batch fail as a whole
     * @throws NullPointerException if {@code sources} or one of them is {@code null}
     * @throws IllegalArgumentException if a reference names an index other than the source index
     */
    public RebuildResult rebuildDocs(Collection<DocRef> sources) {
        List<Rebuilder.Ref> refs = new ArrayList<>(sources.size());
        sources.forEach(d -> refs.add(new Rebuilder.Ref(inSource(d).id(), d.routing())));
        return rebuilder.rebuild(refs);
    }

    /**
     * Rebuilds the views of every source pointing to {@code parentId}: refreshes the source index (unless
     * {@link Builder#refreshBeforeFanOut} is off) and streams them in batches; constant memory.
     *
     * @param parentId the parent document's id
     * @return what the rebuilds did, summed over the batches; {@link RebuildResult#requested()} is 0
     *     when no source points to the parent
     * @throws ViewException if the refresh, the stream or a batch fails as a whole
     * @throws NullPointerException if {@code parentId} is {@code null}
     * @throws IllegalArgumentException if {@code parentId} is empty
     */
    public RebuildResult rebuildParent(String parentId) {
        return rebuilder.rebuildParent(parentId);
    }

    /**
     * {@link #snapshot(DocRef)} of a source routed by its id.
     *
     * @param sourceId the source document's id
     * @return the composed view and its version; a delete when the source is gone
     * @throws NullPointerException if {@code sourceId} is {@code null}
     * @throws IllegalArgumentException if {@code sourceId} is empty
     * @throws ViewException as {@link #snapshot(DocRef)}
     */
    public ViewSnapshot snapshot(String sourceId) {
        return snapshot(DocRef.id(sourceId));
    }

    /**
     * Reads a consistent snapshot of one source and its parent now and composes the view, without
     * writing it (see {@link ViewSnapshot}).
     *
     * @param source the source document (a reference naming an index must name the source index)
     * @return the composed view and its version; a delete when the source is gone
     * @throws NullPointerException if {@code source} is {@code null}
     * @throws IllegalArgumentException if {@code source} names an index other than the source index
     * @throws ViewException if the reads fail, or the sources kept changing through every attempt
     *     ({@link Builder#maxRounds}), or the composition failed
     */
    public ViewSnapshot snapshot(DocRef source) {
        DocRef s = inSource(source);
        return ViewCalls.call(
                () -> {
                    List<ViewFailure> failures = new ArrayList<>();
                    List<Rebuilder.Prepared> ready = rebuilder.prepare(
                            List.of(new Rebuilder.Ref(s.id(), s.routing())), failures, new Rebuilder.Counts());
                    if (ready.isEmpty()) {
                        throw new ViewException(
                                "cannot snapshot the view of " + s + ": "
                                        + failures.get(0).reason(),
                                0,
                                null);
                    }
                    return new ViewSnapshot(ready.get(0));
                },
                "taking a snapshot of " + s);
    }

    /**
     * Writes a snapshot taken earlier. If a newer snapshot of the view was written since, Elasticsearch
     * refuses this one ({@link RebuildResult#stale()} is 1) and the newer view stays.
     *
     * @param snapshot a snapshot from {@link #snapshot} of this view
     * @return what the write did: one view written, deleted, refused as stale, or failed
     * @throws NullPointerException if {@code snapshot} is {@code null}
     * @throws ViewException if the write fails as a whole
     */
    public RebuildResult write(ViewSnapshot snapshot) {
        Objects.requireNonNull(snapshot, "snapshot cannot be null");
        return ViewCalls.call(
                () -> {
                    RebuildResult r =
                            rebuilder.write(List.of(snapshot.prepared()), new ArrayList<>(), new Rebuilder.Counts(), 1);
                    settings.tell(l -> l.afterBatch(r), "afterBatch");
                    return r;
                },
                "writing the snapshot of " + snapshot.id());
    }

    /** For tests that prepare and write snapshots out of order. */
    Rebuilder rebuilder() {
        return rebuilder;
    }

    // --- repair -----------------------------------------------------------------------------------

    /**
     * {@link #replayIntents(Duration)} of every intent, then {@link #sweep()}. Safe to run while
     * writers are live.
     *
     * @return what the replays and the sweep found and rebuilt, summed
     * @throws ViewException if reading the intents or the sweep fails as a whole
     */
    public RepairReport repair() {
        return repair.repair();
    }

    /**
     * Replays the intents of this view recorded at least {@code olderThan} ago (zero: all; a replay of
     * an intent whose writer is still working is harmless), and clears each whose views were rebuilt. Then deletes the
     * late copies of long-cleared intents found (see "Requests applied twice, or late") and the cleared intents'
     * markers older than {@link Builder#intentRetention}; a failure of that housekeeping is logged, not thrown.
     *
     * @param olderThan the least age of the intents to replay; {@link Duration#ZERO} for all
     * @return the intents replayed and what their rebuilds did (the sweep's counts are 0)
     * @throws NullPointerException if {@code olderThan} is {@code null}
     * @throws ViewException if reading the intents or a rebuild fails as a whole
     */
    public RepairReport replayIntents(Duration olderThan) {
        return repair.replayIntents(Objects.requireNonNull(olderThan, "olderThan cannot be null"));
    }

    /**
     * The intents of this view not cleared yet (the state index is refreshed first). Late copies of intents cleared
     * long ago are not among them (see "Requests applied twice, or late").
     *
     * @return the pending intents, empty when every change was completed; a new, modifiable list
     * @throws ViewException if the state index cannot be read
     */
    public List<Intent> pendingIntents() {
        return repair.pendingIntents();
    }

    /**
     * Compares every source with its view and rebuilds the views that are missing or were built from
     * other versions of the source or its parent than the current ones; then deletes views whose source
     * is gone. Refreshes the source and view indices, then streams them in batches (constant memory); a
     * view found lagging only because its source changed during the sweep is rebuilt once more, which is
     * harmless.
     *
     * @return the sources and views checked, the lagging views and orphans found, and what their
     *     rebuilds did ({@link RepairReport#intentsReplayed()} is 0)
     * @throws ViewException if a refresh, a stream or a rebuild fails as a whole
     */
    public RepairReport sweep() {
        return repair.sweep();
    }

    // --- reads ------------------------------------------------------------------------------------

    /**
     * The stored view of a source, with its version and bookkeeping (a realtime get).
     *
     * @param sourceId the source document's id, which is the view's id
     * @return the view, or empty when there is none (not built yet, or its source is gone)
     * @throws ViewException if the read fails
     * @throws NullPointerException if {@code sourceId} is {@code null}
     * @throws IllegalArgumentException if {@code sourceId} is empty
     */
    public Optional<ViewDoc> get(String sourceId) {
        Checks.id(sourceId);
        return ViewCalls.call(
                () -> {
                    GetResponse<ObjectNode> g = settings.client()
                            .get(r -> r.index(settings.viewIndex()).id(sourceId), ObjectNode.class);
                    return g.found()
                            ? Optional.of(composer.viewDoc(sourceId, g.version(), g.source()))
                            : Optional.<ViewDoc>empty();
                },
                "reading view " + sourceId);
    }

    /**
     * Runs a query on the view index and returns the <em>source</em> documents of the hits, fetched by id
     * with one {@code _mget} (seed 003's {@code pk__in} trick): 2 round trips in all. The request's
     * index and {@code _source} settings are replaced; everything else (query, size, sort, from,
     * search_after) is used as given. A search some shards of the view did not answer fails (status 503; 400 when
     * the query is what they failed on), unless the request allows partial results ({@code
     * allowPartialSearchResults(true)}).
     *
     * @param request sets the search up on a fresh request builder and returns it
     * @return the source documents of the hits, in hit order, with the view's total hits; 1 round
     *     trip when nothing matched
     * @throws NullPointerException if {@code request} is {@code null}
     * @throws ViewException if the search or the multi-get fails
     * @throws IllegalArgumentException if a source cannot be mapped to the source type
     */
    public ViewPage<S> search(Function<SearchRequest.Builder, SearchRequest.Builder> request) {
        Objects.requireNonNull(request, "request cannot be null");
        return ViewCalls.call(
                () -> {
                    SearchRequest.Builder b = request.apply(new SearchRequest.Builder());
                    SearchRequest req = b.index(settings.viewIndex())
                            .source(s -> s.filter(f -> f.includes(composer.routingPath())))
                            .build();
                    SearchResponse<ObjectNode> found = settings.client().search(req, ObjectNode.class);
                    String shardsMissing = ShardFailures.of(found.shards());
                    if (shardsMissing != null && !Boolean.TRUE.equals(req.allowPartialSearchResults())) {
                        // A page without the failed shards' hits is not the answer, unless the caller asked for one.
                        throw new ViewException(
                                "searching view " + settings.viewIndex() + " failed: " + shardsMissing,
                                ShardFailures.status(found.shards()),
                                null);
                    }
                    long total = found.hits().total() == null
                            ? -1
                            : found.hits().total().value();
                    List<Rebuilder.Ref> refs = found.hits().hits().stream()
                            .map(h -> composer.sourceOf(h.id(), h.source()))
                            .toList();
                    if (refs.isEmpty()) {
                        return new ViewPage<S>(List.of(), total, 0, 1);
                    }
                    MgetResponse<ObjectNode> got = reads.mget(settings.sourceIndex(), refs, null);
                    List<Versioned<S>> hits = new ArrayList<>(refs.size());
                    int missing = 0;
                    for (int i = 0; i < refs.size(); i++) {
                        var d = got.docs().get(i);
                        if (d.isFailure() || !d.result().found()) {
                            missing++;
                            continue;
                        }
                        hits.add(composer.source(d.result(), refs.get(i).routing()));
                    }
                    return new ViewPage<>(hits, total, missing, 2);
                },
                "searching view " + settings.viewIndex());
    }

    // --- plumbing ---------------------------------------------------------------------------------

    private DocRef inSource(DocRef source) {
        return Objects.requireNonNull(source, "source cannot be null").requireIn(settings.sourceIndex());
    }

    @Override
    public String toString() {
        return "MaterializedView{" + settings.name() + ": " + settings.sourceIndex() + " + " + settings.parentIndex()
                + " (by "
                + settings.parentIdField() + ") -> " + settings.viewIndex() + ", state=" + state.index()
                + ", batchSize="
                + settings.batchSize() + '}';
    }

    /**
     * Builder for {@link MaterializedView}. Not thread-safe. Required: {@link #client},
     * {@link #name}, {@link #sourceIndex}, {@link #parentIndex}, {@link #viewIndex},
     * {@link #parentIdField}, and either {@link #copyParent} or {@link #compose}.
     *
     * @param <S> the source type
     * @param <P> the parent type
     */
    public static final class Builder<S, P> {
        /** Default {@link #intentRetention}: 10 minutes. */
        public static final Duration DEFAULT_INTENT_RETENTION = Duration.ofMinutes(10);

        /** Default retry policy for rejected (429) reads and writes: 10 attempts, 10 ms doubling to 2 s, jittered. */
        public static final RetryPolicy DEFAULT_RETRY_POLICY = RetryPolicy.of(r -> r.maxAttempts(10)
                .backoff(Backoff.exponentialWithJitter(Duration.ofMillis(10), 2.0, Duration.ofSeconds(2))));

        private final Class<S> sourceType;
        private final Class<P> parentType;
        private @Nullable ElasticsearchClient client;
        private @Nullable String name;
        private @Nullable String sourceIndex;
        private @Nullable String parentIndex;
        private @Nullable String viewIndex;
        private @Nullable String parentIdField;
        private final List<ViewComposer.Copy> copies = new ArrayList<>();
        private @Nullable BiFunction<S, P, ?> composer;
        private @Nullable DocumentConverter converter;
        private String stateIndex = "esrel-views";
        private String metaField = "esrel";
        private int batchSize = 500;
        private int maxRounds = 10;
        private RetryPolicy retryPolicy = DEFAULT_RETRY_POLICY;
        private ViewListener listener = ViewListener.NO_OP;
        private boolean refreshBeforeFanOut = true;
        private Duration intentRetention = DEFAULT_INTENT_RETENTION;
        private Clock clock = Clock.systemUTC();

        private Builder(Class<S> sourceType, @Nullable Class<P> parentType) {
            this.sourceType = Objects.requireNonNull(sourceType, "sourceType cannot be null");
            this.parentType = Objects.requireNonNull(parentType, "parentType cannot be null");
        }

        /**
         * Required: the client whose transport (nodes, authentication, TLS) is used and whose JSON
         * mapper maps the documents to and from the view's types.
         *
         * @param client the Elasticsearch client
         * @return this builder
         * @throws NullPointerException if {@code client} is {@code null}
         */
        public Builder<S, P> client(ElasticsearchClient client) {
            this.client = Objects.requireNonNull(client, "client cannot be null");
            return this;
        }

        /**
         * Required: names the view's clock and intents; letters, digits, {@code _}, {@code -}.
         *
         * @param name the view's name, 1 to 100 characters
         * @return this builder
         * @throws NullPointerException if {@code name} is {@code null}
         * @throws IllegalArgumentException otherwise
         */
        public Builder<S, P> name(String name) {
            Objects.requireNonNull(name, "name cannot be null");
            if (!NAME.matcher(name).matches()) {
                throw new IllegalArgumentException(
                        "view name must be 1-100 letters, digits, '_' or '-', got [" + name + "]");
            }
            this.name = name;
            return this;
        }

        /**
         * Required: the "many"-side index (photos); one view per document.
         *
         * @param index the source index
         * @return this builder
         * @throws NullPointerException if {@code index} is {@code null}
         */
        public Builder<S, P> sourceIndex(String index) {
            this.sourceIndex = Objects.requireNonNull(index, "sourceIndex cannot be null");
            return this;
        }

        /**
         * Required: the "one"-side index (users); its documents are read by id.
         *
         * @param index the parent index
         * @return this builder
         * @throws NullPointerException if {@code index} is {@code null}
         */
        public Builder<S, P> parentIndex(String index) {
            this.parentIndex = Objects.requireNonNull(index, "parentIndex cannot be null");
            return this;
        }

        /**
         * Required: where the views live; view ids are the source ids.
         *
         * @param index the view index
         * @return this builder
         * @throws NullPointerException if {@code index} is {@code null}
         */
        public Builder<S, P> viewIndex(String index) {
            this.viewIndex = Objects.requireNonNull(index, "viewIndex cannot be null");
            return this;
        }

        /**
         * Required: the source field holding the parent's id; keyword (or numeric) for the fan-out search.
         *
         * @param field the source field's path, dotted for an inner field
         * @return this builder
         * @throws NullPointerException if {@code field} is {@code null}
         */
        public Builder<S, P> parentIdField(String field) {
            this.parentIdField = Objects.requireNonNull(field, "parentIdField cannot be null");
            return this;
        }

        /**
         * The default composition: every field of the source, plus the parent's {@code from} copied to
         * {@code to} (removed when the parent or its field is missing). May be called several times,
         * once per field; not together with {@link #compose}.
         *
         * @param from the parent field to copy
         * @param to the view field to copy it to
         * @return this builder
         * @throws NullPointerException if {@code from} or {@code to} is {@code null}
         */
        public Builder<S, P> copyParent(String from, String to) {
            copies.add(new ViewComposer.Copy(from, to));
            return this;
        }

        /**
         * A custom composition: the whole view document from the source and its parent ({@code null} when
         * the source names no parent or the parent does not exist). Must be pure: it may run more than once.
         * Not together with {@link #copyParent}.
         *
         * @param composer returns the view document, which must serialize to a JSON object without the
         *     {@link #metaField} field; never {@code null}
         * @return this builder
         * @throws NullPointerException if {@code composer} is {@code null}
         */
        public Builder<S, P> compose(BiFunction<S, P, ?> composer) {
            this.composer = Objects.requireNonNull(composer, "composer cannot be null");
            return this;
        }

        /**
         * How sources and parents are mapped to {@code S} and {@code P}, and the {@link #compose} function's value
         * to the view document. Default: the client's own JSON mapper. The Spring Boot starters set Spring Data's
         * converter here when the application has Spring Data Elasticsearch ({@code esrel-spring-data}).
         *
         * @param converter the converter, not {@code null}
         * @return this builder
         * @throws NullPointerException if {@code converter} is {@code null}
         */
        public Builder<S, P> documentConverter(DocumentConverter converter) {
            this.converter = Objects.requireNonNull(converter, "documentConverter cannot be null");
            return this;
        }

        /**
         * The one-shard index for the clock and the intents; created on first use. Default {@code esrel-views}.
         * Several views may share it; it must not be deleted while views exist (see the class comment).
         *
         * @param index the state index
         * @return this builder
         * @throws NullPointerException if {@code index} is {@code null}
         */
        public Builder<S, P> stateIndex(String index) {
            this.stateIndex = Objects.requireNonNull(index, "stateIndex cannot be null");
            return this;
        }

        /**
         * The view field holding its bookkeeping (source and parent versions). Default {@code esrel}.
         *
         * @param field the bookkeeping field, which the composed view must not have
         * @return this builder
         * @throws NullPointerException if {@code field} is {@code null}
         */
        public Builder<S, P> metaField(String field) {
            this.metaField = Objects.requireNonNull(field, "metaField cannot be null");
            return this;
        }

        /**
         * Views per read and write batch. Default 500.
         *
         * @param batchSize the most views per batch
         * @return this builder
         * @throws IllegalArgumentException unless 1..10,000
         */
        public Builder<S, P> batchSize(int batchSize) {
            this.batchSize = Checks.between(batchSize, 1, 10_000, "batchSize");
            return this;
        }

        /**
         * Snapshot attempts per view when its sources keep changing between the two reads. Default 10.
         * A view still changing after that is reported as a {@link ViewFailure}.
         *
         * @param maxRounds the most snapshot attempts per view
         * @return this builder
         * @throws IllegalArgumentException if less than 1
         */
        public Builder<S, P> maxRounds(int maxRounds) {
            if (maxRounds < 1) {
                throw new IllegalArgumentException("maxRounds must be at least 1, got " + maxRounds);
            }
            this.maxRounds = maxRounds;
            return this;
        }

        /**
         * For 429 rejections of reads and writes. Default {@link #DEFAULT_RETRY_POLICY}.
         *
         * @param policy how often and how long to retry a rejected request
         * @return this builder
         * @throws NullPointerException if {@code policy} is {@code null}
         */
        public Builder<S, P> retryPolicy(RetryPolicy policy) {
            this.retryPolicy = Objects.requireNonNull(policy, "retryPolicy cannot be null");
            return this;
        }

        /**
         * Follows rebuilds and repairs. Default {@link ViewListener#NO_OP}.
         *
         * @param listener called synchronously on the calling thread; its exceptions are logged and
         *     ignored
         * @return this builder
         * @throws NullPointerException if {@code listener} is {@code null}
         */
        public Builder<S, P> listener(ViewListener listener) {
            this.listener = Objects.requireNonNull(listener, "listener cannot be null");
            return this;
        }

        /**
         * Refresh the source index before finding a parent's sources. Default true (see the class comment).
         *
         * @param refresh {@code false} to skip the refresh, at the risk of missing a source written or
         *     re-parented since the last refresh
         * @return this builder
         */
        public Builder<S, P> refreshBeforeFanOut(boolean refresh) {
            this.refreshBeforeFanOut = refresh;
            return this;
        }

        /**
         * How long the marker a cleared intent leaves in the state index is kept (see the class comment, "A late
         * copy of an intent"). While it is kept, a copy of the intent's request that a node runs late is refused;
         * after it, the copy is recognised as stale by the view's floor. Markers older than this are deleted by
         * {@link MaterializedView#repair()} and by a change at most every half of it, so the state index holds
         * about this long's worth of changes. Keep it well above the skew between the writers' clocks and the
         * longest a client waits for the answer to a write (its socket timeout). Default
         * {@link #DEFAULT_INTENT_RETENTION}.
         *
         * @param retention how long cleared intents' markers are kept, at least one minute
         * @return this builder
         * @throws NullPointerException if {@code retention} is {@code null}
         * @throws IllegalArgumentException if less than one minute
         */
        public Builder<S, P> intentRetention(Duration retention) {
            Objects.requireNonNull(retention, "intentRetention cannot be null");
            if (retention.compareTo(Duration.ofMinutes(1)) < 0) {
                throw new IllegalArgumentException("intentRetention must be at least one minute, got " + retention);
            }
            this.intentRetention = retention;
            return this;
        }

        /** For tests that age intents without waiting: the wall clock intents are stamped and collected by. */
        Builder<S, P> clock(Clock clock) {
            this.clock = Objects.requireNonNull(clock, "clock cannot be null");
            return this;
        }

        /**
         * Builds the view; see {@link MaterializedView#of} for what building does.
         *
         * @return the view
         * @throws NullPointerException if a required value is missing
         * @throws IllegalArgumentException if the view copies nothing from the parent, mixes
         *     {@link #copyParent} with {@link #compose}, or esrel cannot send its own JSON through the
         *     client (a transport of the application's making without a Jackson 2 mapper)
         * @throws IllegalStateException if the server refuses this client line's requests
         */
        public MaterializedView<S, P> build() {
            return new MaterializedView<>(this);
        }
    }
}
