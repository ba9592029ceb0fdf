package io.github.esrel.occ;

import co.elastic.clients.elasticsearch.ElasticsearchAsyncClient;
import co.elastic.clients.elasticsearch.ElasticsearchClient;
import co.elastic.clients.elasticsearch._types.Refresh;
import io.github.esrel.ExceptionTranslator;
import io.github.esrel.doc.DocRef;
import io.github.esrel.doc.DocumentConverter;
import io.github.esrel.internal.Clients;
import io.github.esrel.retry.RetryPolicy;
import io.github.esrel.retry.StopReason;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Optimistic concurrency for Elasticsearch documents: read a document as a typed object, apply a pure
 * function, write the result back only if nobody changed the document in between
 * ({@code if_seq_no} + {@code if_primary_term}), and on a version conflict (409) re-read and re-apply
 * under a {@link RetryPolicy}. Concurrent writers lose no update (seed 004's vote counter).
 *
 * <pre>{@code
 * Occ occ = Occ.of(b -> b.client(es));
 * Outcome<Shirt> vote = occ.update("designs", "1", Shirt.class, s -> s.withVotes(s.votes() + 1));
 * occ.update(DocRef.of("orders", "o-1").withRouting("tenant-7"), Order.class, Order::ship); // a routed document
 *
 * occ.upsert("designs", "2", Shirt.class, () -> new Shirt("new", 0), s -> s.withVotes(s.votes() + 1));
 * occ.bulk(Shirt.class).update("designs", "1", s -> s.withVotes(s.votes() + 1)).execute();
 * }</pre>
 *
 * <p>{@link #async()} is the same updater without blocking: the same operations return {@code CompletableFuture}s.
 *
 * <h2>Guarantees and rules</h2>
 * <ul>
 *   <li>The function must be pure: it may run several times (once per attempt) and must not mutate its
 *       argument in ways that matter outside. If it throws, the exception propagates unchanged and nothing
 *       is written. It must not return {@code null}.</li>
 *   <li>Nothing your class does not map is lost: esrel writes the function's changes onto the stored source (see
 *       below).</li>
 *   <li>No write happens when the function changes nothing the class maps, or its changes leave the stored
 *       source as it was (numbers compared by value): the outcome is {@link Outcome.Status#NOOP} and seq_no
 *       stays as it was.</li>
 *   <li>Routing is passed on every read and write. A routed document read without its routing (or with
 *       another one) is "not found" on the wrong shard (seed 002); on such a miss esrel searches for the
 *       id and, if it lives under another routing, throws an {@link OccException} (404) naming it, so an
 *       upsert never creates a second copy on another shard. Indices with {@code _routing.required} fail
 *       with a message saying so.</li>
 *   <li>An update is never lost without the caller being told: when the document keeps changing until the
 *       retry policy runs out, {@code update}, {@code upsert}, {@code deleteIf}, {@code replace} and
 *       throw an {@link OccConflictException}, {@code BulkUpdate.execute()} an {@link OccBulkException} (the {@code try...} variants
 *       return the {@link Outcome} with status {@link Outcome.Status#CONFLICT} instead). The default policy
 *       retries for up to {@value #DEFAULT_MAX_ATTEMPTS} attempts within {@link #DEFAULT_DEADLINE}. Every
 *       other failure is an {@link OccException} that keeps the cause. Rejections (429) are retried under
 *       the same policy.</li>
 * </ul>
 *
 * <h2>Lost answers: never applied twice, never guessed</h2>
 * A write can be applied and its answer lost: the connection fails or times out after sending, a load balancer gives
 * up, or Elasticsearch answers with a server error that does not say it refused the write. The low-level clients
 * ({@code Rest5Client}, {@code RestClient}) would send it again to the next host of the client, and the copy would be
 * applied a second time or answer a conflict with the write itself, which looks like another writer's. esrel never
 * lets them: on every client configuration (one host or several, {@code spring.elasticsearch.uris}, elasticsearch-java's
 * own retries) a write of esrel's is sent again only where no earlier copy can have reached a node, and it goes as a
 * {@code POST}, which proxies do not resend. It then reads the document:
 * <ul>
 *   <li>still as the write found it: not applied (yet); the same write is sent again, conditional on the same version,
 *       so that however many copies arrive, at most one applies;</li>
 *   <li>changed since: the outcome is {@link Outcome.Status#UNKNOWN}, unless the {@link Builder#writeLog(boolean)
 *       write log} shows the write applied ({@code UPDATED}, with its seq_no unknown) or not applied (retried as a
 *       conflict). A conditional delete whose document is gone is {@code UNKNOWN}: nothing tells whose delete it was.</li>
 * </ul>
 * {@code update}, {@code upsert}, {@code deleteIf}, {@code replace}, {@code deleteIfUnchanged} and
 * {@code scriptedUpdate} throw {@link OccUnknownOutcomeException} for {@code UNKNOWN}; the {@code try...} variants
 * return the outcome; a {@link BulkUpdate} item ends {@code UNKNOWN} while the others go on, with the cause in
 * {@link Outcome#error()}. Every call a combined write carried gets it. Read the document to decide: for a counter,
 * count the vote again only if the stored value shows it missing. Reads that fail change nothing and keep failing with
 * an {@link OccException}; a refusal that says nothing was written (a 4xx, 429, no active primary, a block) is not
 * unknown.
 *
 * <p>A version conflict (409) is retried as a conflict. A copy of a write sent by something esrel does not see (a
 * proxy configured to resend {@code POST}s, a transport of the application's making, Elasticsearch's own retry on a
 * new primary after the old one failed mid-write, elasticsearch#9967) also answers a conflict; without an identity for
 * each write in the document, esrel cannot tell that conflict from another writer's, and applies the write again. The
 * write log gives each write that identity (see {@link Builder#writeLog(boolean)}, off by default: every other reader
 * of the documents sees its field).
 *
 * <h2>Fields your class does not map</h2>
 * A stored document often holds more than the class that reads it maps: fields of another service or of a newer
 * version of the application, Spring Data's {@code _class}, whatever a lenient mapper drops as unknown (Jackson 3's
 * default, {@code @JsonIgnoreProperties(ignoreUnknown = true)}). A typed write that stored only what the class
 * serializes would delete them without a word. esrel never does: {@code update}, {@code upsert}, {@code replace} and
 * {@link BulkUpdate} store the stored source <em>with the function's changes applied</em>. To tell a field the class
 * does not map from one the function cleared, esrel maps the stored source to the class and writes it back
 * <em>before</em> the function runs: what comes back is the class's.
 * <ul>
 *   <li>A field the class maps and the function changes is written as the function left it; one it clears (sets to
 *       {@code null} under {@code @JsonInclude(NON_NULL)}, removes from a map) is removed.</li>
 *   <li>A field the function leaves alone keeps its stored JSON exactly: its date format, its number form, and
 *       whatever its nested objects hold that the class does not map; one the document does not have stays absent
 *       (a null or default the class writes for it is not a change).</li>
 *   <li>A field the class does not map, at any level of nested objects, is kept as stored.</li>
 *   <li>In an array whose elements hold fields the class does not map, the function's elements are matched to the
 *       stored ones (equal ones first, then edited in place), and keep their fields. Where elements were both changed
 *       and added or removed, so that nothing tells whose fields are whose, the write is refused before anything is
 *       written, with an {@link UnmappedFieldsException}.</li>
 * </ul>
 * This holds with every mapper (Jackson 2, Jackson 3, JSON-B, one of the application's) and every
 * {@link Builder#documentConverter DocumentConverter}. A strict mapper ({@code FAIL_ON_UNKNOWN_PROPERTIES}, Jackson
 * 2's default) refuses to read a source with fields the class does not map: the operation fails with an
 * {@link OccException} naming the field, and nothing is written. {@link ExternalVersions} writes documents whole: it
 * never reads the copy it replaces, since the source of truth is elsewhere.
 *
 * <h2>Write combining (on by default)</h2>
 * A vote counter, a stock level, a rate-limit bucket: many threads updating one document would each read,
 * write, conflict and retry, and go no faster than one. Instead, the {@code update}, {@code upsert} and
 * {@code deleteIf} calls of one document (same index as given, id and routing) made through one {@code Occ}
 * queue behind a single conditional write in flight; the next write reads the document once, applies every
 * queued function in the order the calls were made, each to the value the one before it produced, and writes
 * once. While the document stays busy (and for 200 ms after its queue empties), a write starts from what the
 * write before it stored instead of reading it again (a realtime read of a document changed since the last
 * refresh makes the shard refresh): the write is conditional on that write's seq_no, so if another process changed
 * the document in between, it conflicts and esrel reads the document and applies the functions again at once.
 * Before it takes the queue, the caller that runs the next write waits for the callers the last write carried to
 * queue again, for at most half the time that write took and 2 ms (after waits in vain, less and less often: at
 * most one write in 64 while callers do not come back, as when they arrive at random): writers in a loop would
 * otherwise split into two groups taking turns, each write carrying half of them. Share one {@code Occ} per
 * application: writers of one instance no longer conflict with one another; conflicts come only from other
 * processes (or other instances), and are retried with the policy's jittered backoff, the whole queue backing off
 * together.
 * <ul>
 *   <li>Each caller gets its own {@link Outcome}: the value after its function, the seq_no, primary term
 *       and version of the write that stored it (shared by every call that write carried), its own attempts
 *       and conflicts, and its own retry policy (attempts, deadline counted from its call). A function that
 *       throws fails only its caller, with its own exception; the other calls still apply. A function that
 *       changes nothing is {@code NOOP} (with the version read, or the version written if earlier calls of
 *       the write changed what it saw). An upsert that finds the document missing is {@code CREATED} and the
 *       calls after it in the same write {@code UPDATED}.</li>
 *   <li>A caller's own updates of one document are applied in the order it made them.</li>
 *   <li>{@code deleteIf} waits its turn in the queue but runs alone: combined with updates before it, they
 *       would report {@code UPDATED} with a version that was never stored.</li>
 *   <li>{@code replace}, {@code deleteIfUnchanged} and {@code scriptedUpdate} are never queued nor combined:
 *       {@code replace} writes a value the caller computed from the version it saw, so applying it to a
 *       fresher copy would overwrite the changes in between (a lost update), and applying it as read would
 *       conflict anyway; it stays one conditional write.</li>
 *   <li>The functions run on the thread of one of the waiting callers, in turn: a function must not rely on
 *       thread-locals (a transaction, a security or logging context) nor block on other callers. A call made
 *       from inside a function (a nested update) is not combined, so it cannot wait for itself.</li>
 *   <li>A caller interrupted while its call waits in the queue gets {@code CONFLICT} with
 *       {@link StopReason#INTERRUPTED} (nothing was written for it) and keeps its interrupt flag; one whose
 *       call is in a write in flight waits for that write's result. If the request of a combined write fails
 *       (I/O, or an error that is not retried), every caller it carried gets the {@link OccException}: the
 *       write may or may not have happened, as for one caller.</li>
 *   <li>Memory: a queued call is a blocked caller, so a document's queue holds at most one call per waiting
 *       thread and is gone when the document goes idle (what its last write stored is kept 200 ms longer, for
 *       at most 64 documents); one write applies at most 256 functions, the rest go into the next.</li>
 * </ul>
 * {@link Builder#combineWrites(boolean) combineWrites(false)} gives every call its own loop again. A
 * {@link BulkUpdate} combines its own items of one document (one read and one write per document and round, see
 * there) but not with the calls of other threads: its writes are conditional like any other, so they stay
 * correct next to combined calls of the same documents and retry when those change them.
 *
 * <p>Thread-safe; holds no connection of its own. Sources are mapped to the caller's types with the client's own
 * JSON mapper, so documents read and written here look as those the application writes itself: a
 * {@code JacksonJsonpMapper}'s {@code ObjectMapper} (its naming strategy and modules included), Spring Boot 4's
 * {@code Jackson3JsonpMapper}, or any other mapper that maps the caller's classes
 * (a {@code SimpleJsonpMapper} maps none: use {@code ObjectNode} as the type with it); or with the
 * {@link Builder#documentConverter DocumentConverter} you give (Spring Data's, for its entities).
 */
public final class Occ {

    private static final Logger LOG = LoggerFactory.getLogger(Occ.class);

    /** Attempts of the default retry policy, the first included. */
    public static final int DEFAULT_MAX_ATTEMPTS = 100;
    /** The longest the default retry policy keeps retrying one operation. */
    public static final Duration DEFAULT_DEADLINE = Duration.ofSeconds(30);
    /**
     * The default retry policy: a hot document (many writers of one counter) needs more attempts than
     * {@link RetryPolicy#defaults()}, and giving up throws, so it retries longer before it does.
     */
    static final RetryPolicy DEFAULT_POLICY =
            RetryPolicy.of(b -> b.maxAttempts(DEFAULT_MAX_ATTEMPTS).deadline(DEFAULT_DEADLINE));

    private final OccCore core;
    private final OccCalls calls;
    private final OccAsync async;
    private final SeenWrites seenWrites;
    private final ScriptedUpdate scripted;

    private Occ(Builder b) {
        ElasticsearchClient client = Clients.internal(Objects.requireNonNull(b.client, "client cannot be null"));
        WriteLog log = b.writeLog == null ? WriteLog.off() : new WriteLog(b.writeLog, true);
        if (!log.adds() && !Clients.seesEveryCopy(client)) {
            LOG.warn(
                    "esrel cannot see whether the transport {} sends a request more than once (it is not built on"
                            + " Rest5Client or RestClient): a copy of a write it sends again would answer a conflict that esrel"
                            + " retries as another writer's, applying the write twice. Build the Occ with writeLog(true) to"
                            + " recognise such copies.",
                    b.client._transport().getClass().getName());
        }
        this.core = new OccCore(
                client,
                Sender.blocking(client),
                b.refresh,
                new Json(b.client._jsonpMapper(), b.converter),
                log,
                b.policy,
                b.routingCheck,
                b.listener,
                b.exceptionTranslator);
        this.calls = new OccCalls(core, b.combineWrites);
        this.async = new OccAsync(core.async(), b.combineWrites);
        this.seenWrites = new SeenWrites(core);
        this.scripted = new ScriptedUpdate(core);
    }

    /**
     * Builds an updater with a lambda, in the style of the elasticsearch-java client.
     *
     * @param fn sets the builder's options, at least {@link Builder#client}
     * @return the new updater
     * @throws NullPointerException if no client was set
     * @throws IllegalArgumentException if esrel cannot send its own JSON through the client (a transport of the
     *     application's making without a Jackson 2 mapper)
     * @throws IllegalStateException if the server refuses the requests of this client line
     */
    public static Occ of(Function<Builder, Builder> fn) {
        return fn.apply(new Builder()).build();
    }

    /**
     * Starts a builder; {@link Builder#client} is required.
     *
     * @return a new builder with the defaults
     */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * The policy that retries conflicts (409) and rejections (429); also the default of
     * {@link BulkUpdate#retryPolicy}.
     *
     * @return the retry policy, never {@code null}
     */
    public RetryPolicy retryPolicy() {
        return core.retryPolicy();
    }

    /**
     * Reads a document routed by its id, with what a later conditional write needs (realtime).
     *
     * @param <T> the caller's document type
     * @param index the index (or alias) of the document
     * @param id the document id
     * @param type the class the source is mapped to with the client's JSON mapper
     * @return empty when there is no such document
     * @throws OccException as {@link #get(DocRef, Class)}
     * @throws IllegalArgumentException if {@code index} is blank or {@code id} is empty
     */
    public <T> Optional<Versioned<T>> get(String index, String id, Class<T> type) {
        return get(DocRef.of(index, id), type);
    }

    /**
     * Reads a document with what a later conditional write needs. The read is realtime (by id, no
     * refresh needed).
     *
     * @param <T> the caller's document type
     * @param doc the document: index, id and the routing value it was written with
     * @param type the class the source is mapped to with the client's JSON mapper
     * @return empty when there is no such document
     * @throws OccException if the index does not exist (404), the id exists under another routing (404),
     *     the index requires routing (400), the source cannot be mapped to {@code type}, or the read fails
     * @throws IllegalArgumentException if {@code doc} names no index
     */
    public <T> Optional<Versioned<T>> get(DocRef doc, Class<T> type) {
        return seenWrites.get(doc, type);
    }

    /**
     * {@link #update(DocRef, Class, UnaryOperator)} for a document routed by its id.
     *
     * @param <T> the caller's document type
     * @param index the index (or alias) of the document
     * @param id the document id
     * @param type the class the source is mapped to with the client's JSON mapper
     * @param fn the pure function from the stored value to the new one; may run once per attempt and
     *     must not return {@code null}
     * @return {@code UPDATED}, {@code NOOP} (equal value, nothing written) or {@code NOT_FOUND}
     * @throws OccConflictException if the document kept changing until the retry policy ran out: the update
     *     was not made, and the exception says so (it is never silently dropped)
     * @throws OccUnknownOutcomeException if the write was sent and whether it was applied is not known (see the
     *     class comment)
     * @throws OccException see the class comment
     * @throws IllegalArgumentException if {@code index} is blank or {@code id} is empty
     */
    public <T> Outcome<T> update(String index, String id, Class<T> type, UnaryOperator<T> fn) {
        return update(DocRef.of(index, id), type, fn);
    }

    /**
     * Reads the document, applies {@code fn}, writes the result if the document is unchanged since the
     * read; on a conflict, re-reads and re-applies, under the retry policy. If the policy runs out, the
     * caller is told: an {@link OccConflictException} (use {@link #tryUpdate} for the outcome instead).
     *
     * @param <T> the caller's document type
     * @param doc the document: index, id and the routing value it was written with
     * @param type the class the source is mapped to with the client's JSON mapper
     * @param fn the pure function from the stored value to the new one; may run once per attempt and
     *     must not return {@code null}
     * @return {@code UPDATED}, {@code NOOP} (equal value, nothing written) or {@code NOT_FOUND}
     * @throws OccConflictException if the document kept changing until the retry policy ran out
     * @throws OccUnknownOutcomeException if the write was sent and whether it was applied is not known (see the
     *     class comment)
     * @throws OccException see the class comment
     * @throws IllegalArgumentException if {@code doc} names no index
     */
    public <T> Outcome<T> update(DocRef doc, Class<T> type, UnaryOperator<T> fn) {
        return core.orThrow(tryUpdate(doc, type, fn));
    }

    /**
     * {@link #update(DocRef, Class, UnaryOperator)}, returning giving up as an outcome rather than throwing:
     * for callers that handle {@link Outcome.Status#CONFLICT} themselves.
     *
     * @param <T> the caller's document type
     * @param doc the document: index, id and the routing value it was written with
     * @param type the class the source is mapped to with the client's JSON mapper
     * @param fn the pure function from the stored value to the new one; may run once per attempt
     * @return {@code UPDATED}, {@code NOOP}, {@code NOT_FOUND}, {@code CONFLICT} (gave up) or {@code UNKNOWN}
     * @throws OccException see the class comment
     * @throws IllegalArgumentException if {@code doc} names no index
     */
    public <T> Outcome<T> tryUpdate(DocRef doc, Class<T> type, UnaryOperator<T> fn) {
        return calls.call(Outcome.Operation.UPDATE, doc, type, null, fn, null);
    }

    /**
     * {@link #upsert(DocRef, Class, Supplier, UnaryOperator)} for a document routed by its id.
     *
     * @param <T> the caller's document type
     * @param index the index (or alias) of the document
     * @param id the document id
     * @param type the class the source is mapped to with the client's JSON mapper
     * @param initial supplies the value to start from when the document does not exist
     * @param fn the pure function applied to the stored value, or to the initial one
     * @return {@code CREATED}, {@code UPDATED} or {@code NOOP}
     * @throws OccConflictException if the document kept changing until the retry policy ran out
     * @throws OccUnknownOutcomeException if the write was sent and whether it was applied is not known (see the
     *     class comment)
     * @throws OccException see the class comment
     * @throws IllegalArgumentException if {@code index} is blank or {@code id} is empty
     */
    public <T> Outcome<T> upsert(String index, String id, Class<T> type, Supplier<T> initial, UnaryOperator<T> fn) {
        return upsert(DocRef.of(index, id), type, initial, fn);
    }

    /**
     * Create-if-absent, then update: when the document does not exist it is created
     * ({@code op_type=create}) with {@code fn.apply(initial.get())}; when it exists, as
     * {@link #update(DocRef, Class, UnaryOperator)}. If another writer creates it first,
     * the create fails with a conflict and this operation re-reads and applies {@code fn} on top of the
     * winner's value: exactly one creator, nobody's change lost.
     *
     * <p>An upsert into a missing index creates the document (and the index, if the cluster
     * auto-creates indices).
     *
     * @param <T> the caller's document type
     * @param doc the document: index, id and the routing value it is written with
     * @param type the class the source is mapped to with the client's JSON mapper
     * @param initial supplies the value to start from when the document does not exist; must not return
     *     {@code null}
     * @param fn the pure function applied to the stored value, or to the initial one; may run once per
     *     attempt and must not return {@code null}
     * @return {@code CREATED}, {@code UPDATED} or {@code NOOP}
     * @throws OccConflictException if the document kept changing until the retry policy ran out
     * @throws OccUnknownOutcomeException if the write was sent and whether it was applied is not known (see the
     *     class comment)
     * @throws OccException see the class comment
     * @throws IllegalArgumentException if {@code doc} names no index
     */
    public <T> Outcome<T> upsert(DocRef doc, Class<T> type, Supplier<T> initial, UnaryOperator<T> fn) {
        return core.orThrow(tryUpsert(doc, type, initial, fn));
    }

    /**
     * {@link #upsert(DocRef, Class, Supplier, UnaryOperator)}, returning giving up as an outcome.
     *
     * @param <T> the caller's document type
     * @param doc the document: index, id and the routing value it is written with
     * @param type the class the source is mapped to with the client's JSON mapper
     * @param initial supplies the value to start from when the document does not exist
     * @param fn the pure function applied to the stored value, or to the initial one
     * @return {@code CREATED}, {@code UPDATED}, {@code NOOP}, {@code CONFLICT} (gave up) or {@code UNKNOWN}
     * @throws OccException see the class comment
     * @throws IllegalArgumentException if {@code doc} names no index
     */
    public <T> Outcome<T> tryUpsert(DocRef doc, Class<T> type, Supplier<T> initial, UnaryOperator<T> fn) {
        return calls.call(Outcome.Operation.UPSERT, doc, type, initial, fn, null);
    }

    /**
     * {@link #deleteIf(DocRef, Class, Predicate)} for a document routed by its id.
     *
     * @param <T> the caller's document type
     * @param index the index (or alias) of the document
     * @param id the document id
     * @param type the class the source is mapped to with the client's JSON mapper
     * @param condition tested on the current value; may run once per attempt
     * @return {@code DELETED} (with the deleted value), {@code NOOP} (condition false) or {@code NOT_FOUND}
     * @throws OccConflictException if the document kept changing until the retry policy ran out
     * @throws OccUnknownOutcomeException if the write was sent and whether it was applied is not known (see the
     *     class comment)
     * @throws OccException see the class comment
     * @throws IllegalArgumentException if {@code index} is blank or {@code id} is empty
     */
    public <T> Outcome<T> deleteIf(String index, String id, Class<T> type, Predicate<? super T> condition) {
        return deleteIf(DocRef.of(index, id), type, condition);
    }

    /**
     * Deletes the document if {@code condition} holds for its current value and it has not changed
     * between the read and the delete; on a conflict, re-reads and re-tests, under the retry policy.
     *
     * @param <T> the caller's document type
     * @param doc the document: index, id and the routing value it was written with
     * @param type the class the source is mapped to with the client's JSON mapper
     * @param condition tested on the current value; may run once per attempt
     * @return {@code DELETED} (with the deleted value), {@code NOOP} (condition false) or {@code NOT_FOUND}
     * @throws OccConflictException if the document kept changing until the retry policy ran out
     * @throws OccUnknownOutcomeException if the write was sent and whether it was applied is not known (see the
     *     class comment)
     * @throws OccException see the class comment
     * @throws IllegalArgumentException if {@code doc} names no index
     */
    public <T> Outcome<T> deleteIf(DocRef doc, Class<T> type, Predicate<? super T> condition) {
        return core.orThrow(tryDeleteIf(doc, type, condition));
    }

    /**
     * {@link #deleteIf(DocRef, Class, Predicate)}, returning giving up as an outcome.
     *
     * @param <T> the caller's document type
     * @param doc the document: index, id and the routing value it was written with
     * @param type the class the source is mapped to with the client's JSON mapper
     * @param condition tested on the current value; may run once per attempt
     * @return {@code DELETED}, {@code NOOP}, {@code NOT_FOUND}, {@code CONFLICT} (gave up) or {@code UNKNOWN}
     * @throws OccException see the class comment
     * @throws IllegalArgumentException if {@code doc} names no index
     */
    public <T> Outcome<T> tryDeleteIf(DocRef doc, Class<T> type, Predicate<? super T> condition) {
        return calls.call(Outcome.Operation.DELETE_IF, doc, type, null, null, condition);
    }

    /**
     * One conditional write of a value the caller computed from {@code seen} (seed 004's "send the
     * version you read"): succeeds only if the document still has {@code seen}'s seq_no and primary term.
     * Not retried, since esrel cannot recompute the value: if the document changed meanwhile, the caller is
     * told with an {@link OccConflictException} (read again and decide), or use {@link #tryReplace}.
     *
     * @param <T> the caller's document type
     * @param seen the document as read, from {@link #get} or {@link Outcome#versioned()}; its index,
     *     id and routing address the write
     * @param value the new value; must serialize to a JSON object, whose changes from {@code seen} are written onto the
     *     stored source (fields the class does not map are kept, see the class comment)
     * @return {@code UPDATED} or {@code NOOP} (same JSON; nothing written)
     * @throws OccConflictException if the document changed or was deleted since {@code seen}
     * @throws OccUnknownOutcomeException if the write was sent and whether it was applied is not known (see the
     *     class comment)
     * @throws OccException if the write fails for another reason than a conflict
     * @throws UnmappedFieldsException if fields the class does not map cannot be kept (nothing is written)
     * @throws IllegalArgumentException if {@code value} does not serialize to a JSON object
     */
    public <T> Outcome<T> replace(Versioned<T> seen, T value) {
        return core.orThrow(tryReplace(seen, value));
    }

    /**
     * {@link #replace}, returning a conflict as an outcome: one conditional write of a value the caller computed from {@code seen} (seed 004's "send the
     * version you read"): succeeds only if the document still has {@code seen}'s seq_no and primary term.
     * Not retried, since esrel cannot recompute the value: on a conflict, read again and decide.
     *
     * @param <T> the caller's document type
     * @param seen the document as read, from {@link #get} or {@link Outcome#versioned()}; its index,
     *     id and routing address the write
     * @param value the new value; must serialize to a JSON object, whose changes from {@code seen} are written onto the
     *     stored source (fields the class does not map are kept, see the class comment)
     * @return {@code UPDATED}, {@code NOOP} (same JSON; nothing written), {@code CONFLICT} (changed or deleted since
     *     {@code seen}) or {@code UNKNOWN} (sent, and whether it was applied is not known), for callers that handle
     *     them as outcomes
     * @throws OccException if the write fails for another reason than a conflict
     * @throws IllegalArgumentException if {@code value} does not serialize to a JSON object
     */
    public <T> Outcome<T> tryReplace(Versioned<T> seen, T value) {
        Objects.requireNonNull(seen, "seen cannot be null");
        Objects.requireNonNull(value, "value cannot be null");
        return seenWrites.replace(seen, value);
    }

    /**
     * Deletes the document only if it still has {@code seen}'s seq_no and primary term. Not retried: if the
     * document changed meanwhile, an {@link OccConflictException} says so (or use
     * {@link #tryDeleteIfUnchanged}).
     *
     * @param <T> the caller's document type
     * @param seen the document as read, from {@link #get} or {@link Outcome#versioned()}
     * @return {@code DELETED}
     * @throws OccConflictException if the document changed or was deleted since {@code seen}
     * @throws OccUnknownOutcomeException if the write was sent and whether it was applied is not known (see the
     *     class comment)
     * @throws OccException if the delete fails for another reason than a conflict
     */
    public <T> Outcome<T> deleteIfUnchanged(Versioned<T> seen) {
        return core.orThrow(tryDeleteIfUnchanged(seen));
    }

    /**
     * {@link #deleteIfUnchanged}, returning a conflict as an outcome.
     *
     * @param <T> the caller's document type
     * @param seen the document as read, from {@link #get} or {@link Outcome#versioned()}; its index,
     *     id and routing address the delete
     * @return {@code DELETED}, {@code CONFLICT} (changed or already deleted since {@code seen}) or {@code UNKNOWN}
     *     (sent, and whether it was applied is not known)
     * @throws OccException if the delete fails for another reason than a conflict
     */
    public <T> Outcome<T> tryDeleteIfUnchanged(Versioned<T> seen) {
        Objects.requireNonNull(seen, "seen cannot be null");
        return seenWrites.deleteIfUnchanged(seen);
    }

    /**
     * Passthrough to the update API with a painless script and {@code retry_on_conflict}: the server
     * reads, runs the script and writes, retrying internally up to {@code retryOnConflict} times (seed
     * 004). Needs the {@code lang-painless} module on the cluster; the optimistic
     * {@link #update(DocRef, Class, UnaryOperator)} needs no scripting and works
     * everywhere.
     *
     * @param doc the document: index, id and the routing value it was written with
     * @param painless the painless script's source; it sees the parameters as {@code params} and the
     *     document as {@code ctx._source}
     * @param params script parameters (mapped to JSON), may be empty
     * @return {@code UPDATED}, {@code NOOP} (the script set {@code ctx.op = 'none'} or changed nothing) or
     *     {@code NOT_FOUND}; {@code attempts} is 1 (the server's internal retries are not reported)
     * @throws OccConflictException if the server's retries ran out on conflicts
     * @throws OccUnknownOutcomeException if the write was sent and whether it was applied is not known (see the
     *     class comment)
     * @throws OccException (400) naming the missing {@code lang-painless} module when the
     *     cluster cannot run painless (the test distribution cannot), or for any other failure
     * @param retryOnConflict how many times the server retries on a version conflict, 0 for none
     * @throws IllegalArgumentException if {@code retryOnConflict} is negative or {@code doc} names no index
     */
    public Outcome<Void> scriptedUpdate(DocRef doc, String painless, Map<String, ?> params, int retryOnConflict) {
        Objects.requireNonNull(doc, "doc cannot be null");
        String index = doc.requireIndex();
        Objects.requireNonNull(painless, "painless cannot be null");
        if (retryOnConflict < 0) {
            throw new IllegalArgumentException("retryOnConflict must not be negative, got " + retryOnConflict);
        }
        return scripted.run(index, doc.id(), doc.routing(), painless, params, retryOnConflict);
    }

    /**
     * Whether every node can run painless (has the {@code lang-painless} module), so that
     * {@link #scriptedUpdate} can work; {@code false} also when node info cannot be read.
     * Asks the cluster for node info on every call.
     *
     * @return true only when every node is known to have {@code lang-painless}
     */
    public boolean scriptingAvailable() {
        return Boolean.TRUE.equals(Errors.painlessOnEveryNode(core.client()));
    }

    /**
     * Starts a bulk optimistic update of many documents of one type: each is read, changed and written
     * conditionally; only the items that conflict are re-read and retried.
     *
     * @param <T> the caller's document type
     * @param type the class the sources are mapped to with the client's JSON mapper
     * @return a new bulk update with this updater's retry policy, to add items to and execute once
     */
    public <T> BulkUpdate<T> bulk(Class<T> type) {
        Objects.requireNonNull(type, "type cannot be null");
        return new BulkUpdate<>(core, type);
    }

    /**
     * The non-blocking form of this updater: the same operations, returning {@link java.util.concurrent.CompletableFuture}s,
     * sent through elasticsearch-java's async client over this updater's transport, with its options, listener and
     * exception translator. Its calls are combined with one another, not with this updater's blocking calls.
     *
     * @return the non-blocking form, one per updater
     */
    public OccAsync async() {
        return async;
    }

    /** Calls of {@code doc} waiting for or carried by a combined write now; 0 when combining is off. For tests. */
    int combining(DocRef doc) {
        doc.requireIndex();
        return calls.pending(doc);
    }

    static void check(String index, String id) {
        if (index == null || index.isBlank()) {
            throw new IllegalArgumentException("index must not be empty, got [" + index + "]");
        }
        if (id == null || id.isEmpty()) {
            throw new IllegalArgumentException("id must not be empty, got [" + id + "]");
        }
    }

    @Override
    public String toString() {
        WriteLog log = core.writeLog();
        return "Occ{policy=" + core.retryPolicy() + ", refresh=" + core.refresh() + ", routingCheck="
                + core.routingCheck() + ", combineWrites=" + calls.combining() + ", writeLog="
                + (log.adds() ? log.field() : "off") + '}';
    }

    /** Builder for {@link Occ}. Not thread-safe. */
    public static final class Builder {
        private @Nullable ElasticsearchClient client;
        private RetryPolicy policy = DEFAULT_POLICY;
        private OccListener listener = OccListener.NO_OP;
        private @Nullable Refresh refresh;
        private boolean routingCheck = true;
        private boolean combineWrites = true;
        private ExceptionTranslator exceptionTranslator = ExceptionTranslator.NONE;
        private @Nullable DocumentConverter converter;
        private @Nullable String writeLog;

        private Builder() {}

        /**
         * Required. Its JSON mapper maps sources to your types; its transport carries esrel's requests.
         *
         * @param client the client every read and write goes through; not closed by esrel
         * @return this builder
         * @throws NullPointerException if {@code client} is {@code null}
         */
        public Builder client(ElasticsearchClient client) {
            this.client = Objects.requireNonNull(client, "client cannot be null");
            return this;
        }

        /**
         * {@link #client(ElasticsearchClient)} for an application that has the async client: esrel sends through its
         * transport and options, blocking for {@link Occ}'s methods and without blocking for {@link Occ#async()}'s.
         *
         * @param client the client whose transport every read and write goes through; not closed by esrel
         * @return this builder
         * @throws NullPointerException if {@code client} is {@code null}
         */
        public Builder client(ElasticsearchAsyncClient client) {
            Objects.requireNonNull(client, "client cannot be null");
            return client(new ElasticsearchClient(client._transport(), client._transportOptions()));
        }

        /**
         * How conflicts (409) and rejections (429) are retried: attempts, backoff, deadline. Default
         * {@value #DEFAULT_MAX_ATTEMPTS} attempts within {@link #DEFAULT_DEADLINE}, jittered exponential backoff
         * from 5 ms to 500 ms ({@link RetryPolicy#DEFAULT_BACKOFF}). When it runs out, the operation throws an
         * {@link OccConflictException} (its {@code try...} variant returns the outcome).
         *
         * @param policy the retry policy
         * @return this builder
         * @throws NullPointerException if {@code policy} is {@code null}
         */
        public Builder retryPolicy(RetryPolicy policy) {
            this.policy = Objects.requireNonNull(policy, "retryPolicy cannot be null");
            return this;
        }

        /**
         * Hears conflicts and outcomes, e.g. {@link OccMetrics}. Default {@link OccListener#NO_OP}.
         *
         * @param listener the listener; called from every thread that uses the {@link Occ}
         * @return this builder
         * @throws NullPointerException if {@code listener} is {@code null}
         */
        public Builder listener(OccListener listener) {
            this.listener = Objects.requireNonNull(listener, "listener cannot be null");
            return this;
        }

        /**
         * The {@code refresh} parameter of every write. Default: not sent (the index's refresh interval
         * applies; reads by id are realtime anyway).
         *
         * @param refresh the refresh mode, or {@code null} to not send the parameter
         * @return this builder
         */
        public Builder refresh(@Nullable Refresh refresh) {
            this.refresh = refresh;
            return this;
        }

        /**
         * Whether a miss is checked for the same id under another routing (one search per miss, see the
         * class comment). Default true.
         *
         * @param routingCheck false to skip the search, so that a miss is simply {@code NOT_FOUND}
         * @return this builder
         */
        public Builder routingCheck(boolean routingCheck) {
            this.routingCheck = routingCheck;
            return this;
        }

        /**
         * Whether concurrent {@code update}, {@code upsert} and {@code deleteIf} calls of the same document
         * (index as given, id and routing) through this {@link Occ} are combined: they queue behind one
         * conditional write in flight, and the next write applies every queued function in order (see
         * "Write combining" in the class comment). Default true.
         *
         * <p>Turn it off when the update functions must run on the caller's own thread (they read
         * thread-locals: a transaction, a security or logging context), or must each see a value that was
         * stored on its own (an ingest pipeline on the index rewrites what is stored and a function relies
         * on the rewritten value); then every call reads, writes and retries on its own, as the functions
         * of other processes' writers always do.
         *
         * @param combineWrites false to give every call its own read-modify-write loop
         * @return this builder
         */
        public Builder combineWrites(boolean combineWrites) {
            this.combineWrites = combineWrites;
            return this;
        }

        /**
         * Translates what the operations throw ({@link OccConflictException} when a retry policy runs out,
         * {@link OccException}, also {@link BulkUpdate#execute()}'s {@link OccBulkException}) into the exceptions the
         * application's framework expects: each such exception goes through the translator once, on its way to the
         * caller. What is not esrel's own passes unchanged (a function's exception, an argument check). Default
         * {@link ExceptionTranslator#NONE}. The {@code try...} variants return giving up as an outcome, as before.
         *
         * @param exceptionTranslator the translator, not {@code null}
         * @return this builder
         * @throws NullPointerException if {@code exceptionTranslator} is {@code null}
         */
        public Builder exceptionTranslator(ExceptionTranslator exceptionTranslator) {
            this.exceptionTranslator =
                    Objects.requireNonNull(exceptionTranslator, "exceptionTranslator cannot be null");
            return this;
        }

        /**
         * How sources are mapped to your types and back. Default: {@link DocumentConverter#of the client's own JSON
         * mapper}. The Spring Boot starters set Spring Data's converter here when the application has Spring Data
         * Elasticsearch ({@code esrel-spring-data}).
         *
         * @param converter the converter, not {@code null}
         * @return this builder
         * @throws NullPointerException if {@code converter} is {@code null}
         */
        public Builder documentConverter(DocumentConverter converter) {
            this.converter = Objects.requireNonNull(converter, "documentConverter cannot be null");
            return this;
        }

        /**
         * Turns the write log on, in the field {@code field} (see {@link #writeLog(boolean)}).
         *
         * @param field the field of the log, such as {@value WriteLog#DEFAULT_FIELD}; not blank
         * @return this builder
         * @throws IllegalArgumentException if {@code field} is blank
         * @throws NullPointerException if {@code field} is {@code null}
         */
        public Builder writeLog(String field) {
            Objects.requireNonNull(field, "writeLog cannot be null");
            if (field.isBlank()) {
                throw new IllegalArgumentException("writeLog must name a field, got [" + field + "]");
            }
            this.writeLog = field;
            return this;
        }

        /**
         * Whether each document this {@code Occ} writes keeps a log of esrel's last writes to it, in the field
         * {@value WriteLog#DEFAULT_FIELD} (or the one {@link #writeLog(String)} names). Default false.
         *
         * <p><b>Without it</b> a write is never applied twice on any client built on elasticsearch-java's
         * {@code Rest5Client} or {@code RestClient}, with one host or several: esrel never lets the client send one of
         * its writes again once a copy may have reached a node, and sends every write as a {@code POST}, which proxies
         * do not resend. A write whose answer is lost is found out by reading the document: still as the write found
         * it, the same write is sent again (conditional on the same version, so that at most one copy applies);
         * changed since, the outcome is {@link Outcome.Status#UNKNOWN}, since nothing tells this write from another
         * writer's.
         *
         * <p><b>With it</b> the document tells: each write adds an entry (the version it was written on and a random
         * id) to the log, so a write whose answer was lost is reported applied or retried as the log shows, not
         * unknown, and a copy sent by something esrel does not see is recognised: a proxy configured to resend
         * {@code POST} requests, a transport of the application's own making, or Elasticsearch itself, which runs a
         * write again on a new primary when the old one failed after replicating it (elasticsearch#9967). Without the
         * log such a copy answers a conflict with the write itself, which esrel retries as another writer's: the write
         * is applied twice. {@link BulkUpdate} uses the log as well.
         *
         * <p><b>What it costs.</b> The last {@value WriteLog#SIZE} writes, about 40 bytes each
         * ({@code [{"on": "1:41", "id": "9f3c0a7e5b2d4c11"}, ...]}): at most about 330 bytes of each document's source.
         * Map the field as {@code {"type": "object", "enabled": false}} so that it is stored and not indexed (dynamic
         * mapping indexes its two strings as text and keyword; an index mapped {@code "dynamic": "strict"} refuses it
         * with an {@link OccException} that says so). Your class need not map it: esrel keeps it like any field your
         * class does not map and hides it from your functions. But every other reader of the documents sees it: one
         * whose mapper refuses unknown fields (elasticsearch-java's default {@code JacksonJsonpMapper} into a class
         * without {@code @JsonIgnoreProperties(ignoreUnknown = true)}) fails on it, which is why it is off by default.
         * A writer without the log that replaces the whole source drops it; esrel's next write starts it again.
         *
         * @param enabled true to keep the log
         * @return this builder
         */
        public Builder writeLog(boolean enabled) {
            this.writeLog = enabled ? (writeLog != null ? writeLog : WriteLog.DEFAULT_FIELD) : null;
            return this;
        }

        /**
         * Builds the updater. The first entry point built on a client's transport sends it one request
         * ({@code GET /}) to check that the server accepts this client line.
         *
         * @return the new updater
         * @throws NullPointerException if no client was set
         * @throws IllegalArgumentException if esrel cannot send its own JSON through the client (a transport of the
         *     application's making without a Jackson 2 mapper)
         * @throws IllegalStateException if the server refuses the requests of this client line (a server
         *     older than the client's major version)
         */
        public Occ build() {
            return new Occ(this);
        }
    }
}
