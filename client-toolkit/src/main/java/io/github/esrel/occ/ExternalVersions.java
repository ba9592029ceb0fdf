package io.github.esrel.occ;

import co.elastic.clients.elasticsearch.ElasticsearchClient;
import co.elastic.clients.elasticsearch._types.ElasticsearchException;
import co.elastic.clients.elasticsearch._types.Refresh;
import co.elastic.clients.elasticsearch._types.Result;
import co.elastic.clients.elasticsearch._types.VersionType;
import co.elastic.clients.elasticsearch.core.IndexResponse;
import co.elastic.clients.elasticsearch.core.bulk.BulkResponseItem;
import io.github.esrel.doc.DocRef;
import io.github.esrel.internal.Clients;
import io.github.esrel.internal.Reasons;
import io.github.esrel.internal.RestCall;
import jakarta.json.JsonObject;
import jakarta.json.JsonString;
import jakarta.json.JsonValue;
import java.io.IOException;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import java.util.function.LongSupplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * Writes and deletes documents whose versions live in another system (a database's row version, an
 * event's sequence number), so that Elasticsearch keeps the newest data whatever order the writes
 * arrive in. The rules of seed 004 ("Elasticsearch versioning support"), as they hold today:
 *
 * <ul>
 *   <li>With {@code version_type=external} Elasticsearch stores the version you give and does not
 *       increment it. A write is accepted only if the given version is <em>strictly greater</em> than the
 *       stored one; {@code external_gte} also accepts an <em>equal</em> version (for re-sending the same
 *       data, e.g. a replay; it lets equal-version writes overwrite each other, so use it only when that
 *       is harmless). A refused write is a 409 and is reported here as {@link ExternalWrite.Status#STALE},
 *       a value, not an error: with external versions old news is expected.</li>
 *   <li>Versions are numbers in {@code [0, 2^63 - 1]} that must grow with every change in the source of
 *       truth; gaps are fine (a time-based version works).</li>
 *   <li>Send the version (and version type) with <em>every</em> write and delete of such a document. A
 *       write without it falls back to internal versioning and bumps the version by one, which breaks the
 *       ordering. For the same reason the {@code _update} API refuses external versions: read, change and
 *       index the whole document with its external version instead.</li>
 *   <li>A delete is remembered as a tombstone carrying its version, so a late, older write does not
 *       bring the document back, <em>but only for {@code index.gc_deletes}</em> (default 60 s). After
 *       that the delete is forgotten and a late older write creates the document again. Measured on
 *       9.5.3 with {@code index.gc_deletes: 1s}: a late write 0.5 s after the delete is refused, one
 *       after 0.9 s or more is accepted (the node's cached clock ticks every 200 ms), with no refresh or
 *       flush needed.</li>
 * </ul>
 *
 * <p>esrel detects the last case where it can: it remembers the deletes <em>this instance</em> made (for
 * {@link Builder#rememberDeletesFor}, default 1 hour) and reports a later older write that Elasticsearch
 * nevertheless accepted as {@link ExternalWrite.Status#RECREATED}, explaining the delete, its age and the
 * index's {@code gc_deletes}. Deletes made by other processes cannot be seen; for a durable guarantee
 * raise {@code index.gc_deletes} above your longest delay, or keep deletes as documents (a "deleted"
 * flag carrying the version) and delete them later.
 *
 * <pre>{@code
 * ExternalVersions ext = ExternalVersions.of(b -> b.client(es));
 * ext.index("designs", "1", null, 526, shirt);      // CREATED / UPDATED, or STALE if 526 is old news
 * ext.delete("designs", "1", null, 1000);
 * ExternalWrite late = ext.index("designs", "1", null, 999, shirt);   // STALE within gc_deletes, RECREATED after
 * }</pre>
 *
 * <p>Writes replace the whole document with {@code document} as the client's mapper writes it: the copy in
 * Elasticsearch is a copy of the source of truth, which is elsewhere, so esrel does not read what it replaces (unlike
 * {@link Occ}'s read-modify-writes, which keep what the class does not map). Put every field the document should hold
 * in what you index.
 *
 * <p>Thread-safe.
 */
public final class ExternalVersions {

    /** "current version [10] is higher or equal to the one provided [9]". */
    private static final Pattern CURRENT_VERSION = Pattern.compile("current version \\[(\\d+)]");

    private static final Duration DEFAULT_GC_DELETES = Duration.ofSeconds(60);

    private final OccCore core;
    private final boolean gte;
    private final Duration rememberDeletesFor;
    private final int maxRememberedDeletes;
    private final LongSupplier nanoClock;
    private final Map<Key, Tombstone> deletes;
    private final Map<String, Duration> gcDeletes = new ConcurrentHashMap<>();

    private ExternalVersions(Builder b) {
        this.core =
                OccCore.requests(Clients.adopt(Objects.requireNonNull(b.client, "client cannot be null")), b.refresh);
        this.gte = b.gte;
        this.rememberDeletesFor = b.rememberDeletesFor;
        this.maxRememberedDeletes = b.maxRememberedDeletes;
        this.nanoClock = b.nanoClock;
        int max = b.maxRememberedDeletes;
        this.deletes = new LinkedHashMap<>(16, 0.75f, false) {
            private static final long serialVersionUID = 1L;

            @Override
            protected boolean removeEldestEntry(Map.Entry<Key, Tombstone> eldest) {
                return size() > max;
            }
        };
    }

    /**
     * Builds a writer with a lambda, in the style of the elasticsearch-java client.
     *
     * @param fn sets the builder's options, at least {@link Builder#client}
     * @return the new writer
     * @throws NullPointerException if no client was set
     * @throws IllegalStateException if the server refuses the requests of this client line
     */
    public static ExternalVersions of(Function<Builder, Builder> fn) {
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
     * {@code external_gte} when true, {@code external} otherwise.
     *
     * @return whether an equal version is accepted, as set with {@link Builder#greaterOrEqual}
     */
    public boolean greaterOrEqual() {
        return gte;
    }

    /**
     * Indexes {@code document}, routed by its id, with external version {@code version}.
     *
     * @param index the index (or alias) of the document
     * @param id the document id
     * @param version the external version, from 0 to {@code 2^63 - 1}; must grow with every change
     * @param document any object the client's mapper serializes to a JSON object
     * @return as {@link #index(DocRef, long, Object)}
     * @throws IllegalArgumentException if {@code version} is negative, {@code index} is blank or
     *     {@code id} is empty
     * @throws NullPointerException if {@code document} is {@code null}
     * @throws OccException for any failure other than a version conflict
     */
    public ExternalWrite index(String index, String id, long version, Object document) {
        return index(DocRef.of(index, id), version, document);
    }

    /**
     * Indexes {@code document} with external version {@code version}.
     *
     * @param doc the document: index, id and the routing value it is written with
     * @param version the external version, from 0 to {@code 2^63 - 1}; must grow with every change
     * @param document any object the client's mapper serializes to a JSON object
     * @return {@code CREATED}, {@code UPDATED}, {@code STALE} (refused: the stored version, or a remembered
     *     delete's, is newer or equal), {@code RECREATED} (see the class comment) or {@code UNKNOWN} (sent, and its
     *     fate not known: a connection failure or a server error)
     * @throws IllegalArgumentException if {@code version} is negative or {@code doc} names no index
     * @throws NullPointerException if {@code doc} or {@code document} is {@code null}
     * @throws OccException for any failure other than a version conflict
     */
    public ExternalWrite index(DocRef doc, long version, Object document) {
        Objects.requireNonNull(doc, "doc cannot be null");
        String index = doc.requireIndex();
        String id = doc.id();
        String routing = doc.routing();
        checkVersion(version);
        Objects.requireNonNull(document, "document cannot be null");
        try {
            IndexResponse r = core.index(
                    index, id, routing, document, i -> i.version(version).versionType(versionType()));
            Tombstone deleted = takeRememberedDelete(index, id, routing);
            if (r.result() == Result.Created && deleted != null && refuses(deleted.version, version)) {
                return new ExternalWrite(
                        index,
                        id,
                        routing,
                        ExternalWrite.Status.RECREATED,
                        version,
                        r.version(),
                        r.seqNo(),
                        r.primaryTerm(),
                        recreatedExplanation(index, id, version, deleted));
            }
            ExternalWrite.Status status =
                    r.result() == Result.Created ? ExternalWrite.Status.CREATED : ExternalWrite.Status.UPDATED;
            return new ExternalWrite(
                    index, id, routing, status, version, r.version(), r.seqNo(), r.primaryTerm(), null);
        } catch (ElasticsearchException | IOException e) {
            return notDone(index, id, routing, version, "write", e);
        }
    }

    /**
     * Deletes the document, routed by its id, with external version {@code version}.
     *
     * @param index the index (or alias) of the document
     * @param id the document id
     * @param version the external version, from 0 to {@code 2^63 - 1}; must grow with every change
     * @return as {@link #delete(DocRef, long)}
     * @throws IllegalArgumentException if {@code version} is negative, {@code index} is blank or
     *     {@code id} is empty
     * @throws OccException for any failure other than a version conflict
     */
    public ExternalWrite delete(String index, String id, long version) {
        return delete(DocRef.of(index, id), version);
    }

    /**
     * Deletes the document with external version {@code version}: applied only if {@code version} is
     * greater than the stored one (or equal, with {@code external_gte}). The delete's version is kept as a
     * tombstone for {@code index.gc_deletes} by Elasticsearch, and remembered by this instance for
     * {@link Builder#rememberDeletesFor}.
     *
     * @param doc the document: index, id and the routing value it was written with
     * @param version the external version, from 0 to {@code 2^63 - 1}; must grow with every change
     * @return {@code DELETED}, {@code NOT_FOUND} (no document, tombstone recorded anyway), {@code STALE} or
     *     {@code UNKNOWN} (sent, and its fate not known)
     * @throws IllegalArgumentException if {@code version} is negative or {@code doc} names no index
     * @throws OccException for any failure other than a version conflict
     */
    public ExternalWrite delete(DocRef doc, long version) {
        Objects.requireNonNull(doc, "doc cannot be null");
        String index = doc.requireIndex();
        String id = doc.id();
        String routing = doc.routing();
        checkVersion(version);
        try {
            BulkResponseItem r =
                    core.delete(index, id, routing, d -> d.version(version).versionType(versionType()));
            remember(index, id, routing, version);
            ExternalWrite.Status status =
                    r.status() == 404 ? ExternalWrite.Status.NOT_FOUND : ExternalWrite.Status.DELETED;
            return new ExternalWrite(
                    index,
                    id,
                    routing,
                    status,
                    version,
                    OccCore.orMinus1(r.version()),
                    OccCore.orMinus1(r.seqNo()),
                    OccCore.orMinus1(r.primaryTerm()),
                    null);
        } catch (ElasticsearchException | IOException e) {
            return notDone(index, id, routing, version, "delete", e);
        }
    }

    /**
     * A write or delete that failed: stale on a conflict, unknown where it may have been applied (sent, and not
     * answered, or answered with a server error that does not say it was refused), else thrown.
     */
    private ExternalWrite notDone(
            String index, String id, @Nullable String routing, long version, String what, Exception e) {
        if (e instanceof ElasticsearchException es) {
            if (es.status() == 409) {
                return stale(index, id, routing, version, es);
            }
            if (!Errors.mayHaveApplied(es)) {
                throw Errors.translate("external-version " + what + " of", index, id, routing, es);
            }
        }
        return unknown(index, id, routing, version, what, e);
    }

    private static ExternalWrite unknown(
            String index, String id, @Nullable String routing, long version, String what, Exception e) {
        return new ExternalWrite(
                index, id, routing, ExternalWrite.Status.UNKNOWN, version, -1, -1, -1, Errors.unknown(what, e));
    }

    /**
     * The index's {@code index.gc_deletes}: how long Elasticsearch remembers deletes. Read once per index
     * and cached.
     *
     * @param index the index name; the value is cached under this name
     * @return the setting, or its default of 60 s when the index does not report it
     * @throws OccException if the settings cannot be read
     */
    public Duration gcDeletes(String index) {
        Duration cached = gcDeletes.get(index);
        if (cached != null) {
            return cached;
        }
        try {
            JsonObject answer = RestCall.get(
                            "/" + RestCall.segment(index) + "/_settings/index.gc_deletes",
                            Map.of("include_defaults", "true", "flat_settings", "true"))
                    .sendForObject(core.client());
            Duration value = DEFAULT_GC_DELETES;
            for (JsonValue perIndex : answer.values()) {
                JsonObject o = perIndex.asJsonObject();
                for (String part : new String[] {"defaults", "settings"}) {
                    JsonObject settings = o.getJsonObject(part);
                    if (settings != null && settings.get("index.gc_deletes") instanceof JsonString str) {
                        value = parseTime(str.getString());
                    }
                }
            }
            gcDeletes.put(index, value);
            return value;
        } catch (ElasticsearchException e) {
            throw new OccException("cannot read index.gc_deletes of [" + index + "]: " + Reasons.of(e), e.status(), e);
        } catch (IOException e) {
            throw new OccException("cannot read index.gc_deletes of [" + index + "]: " + e, 0, e);
        }
    }

    /** Parses Elasticsearch time values: 60s, 1m, 500ms, 2h, 1d (a bare number is milliseconds). */
    static Duration parseTime(String s) {
        String v = s.trim().toLowerCase(java.util.Locale.ROOT);
        Matcher m = Pattern.compile("(-?\\d+)(nanos|micros|ms|s|m|h|d)?").matcher(v);
        if (!m.matches()) {
            throw new IllegalArgumentException("not a time value: [" + s + "]");
        }
        long n = Long.parseLong(m.group(1));
        String unit = m.group(2) == null ? "ms" : m.group(2);
        return switch (unit) {
            case "nanos" -> Duration.ofNanos(n);
            case "micros" -> Duration.ofNanos(n * 1000);
            case "ms" -> Duration.ofMillis(n);
            case "s" -> Duration.ofSeconds(n);
            case "m" -> Duration.ofMinutes(n);
            case "h" -> Duration.ofHours(n);
            default -> Duration.ofDays(n);
        };
    }

    private ExternalWrite stale(
            String index, String id, @Nullable String routing, long version, ElasticsearchException e) {
        String reason = e.error() == null ? "" : String.valueOf(e.error().reason());
        Matcher m = CURRENT_VERSION.matcher(reason);
        long current = m.find() ? Long.parseLong(m.group(1)) : -1;
        Tombstone deleted = remembered(index, id, routing);
        String why;
        if (deleted != null && current == deleted.version) {
            why = "Elasticsearch still remembers the delete of [" + index + "][" + id + "] at version " + current
                    + " (deleted " + age(deleted) + " ago, within index.gc_deletes), so version " + version
                    + " is old news";
        } else {
            why = "Elasticsearch holds version " + (current < 0 ? "(unknown)" : String.valueOf(current)) + " of ["
                    + index + "]["
                    + id + "], which is " + (gte ? "higher than" : "higher than or equal to") + " the provided "
                    + version
                    + " (" + (gte ? "external_gte" : "external") + " versioning), so this write is old news";
        }
        return new ExternalWrite(index, id, routing, ExternalWrite.Status.STALE, version, current, -1, -1, why);
    }

    private String recreatedExplanation(String index, String id, long version, Tombstone deleted) {
        String gc;
        try {
            gc = "index.gc_deletes of [" + index + "] is " + gcDeletes(index).toMillis() + " ms";
        } catch (OccException e) {
            gc = "index.gc_deletes could not be read (" + e.getMessage() + ")";
        }
        return "[" + index + "][" + id + "] was deleted at version " + deleted.version + " by this client "
                + age(deleted)
                + " ago; " + gc + ", so Elasticsearch had forgotten the delete and accepted the older version "
                + version
                + " as a new document. The document now holds old data: delete it again with a version above " + version
                + ", raise index.gc_deletes above the longest delay of your writes, or keep deletes as documents";
    }

    private String age(Tombstone t) {
        return Duration.ofNanos(nanoClock.getAsLong() - t.nanos).toMillis() + " ms";
    }

    private boolean refuses(long storedVersion, long requested) {
        return gte ? requested < storedVersion : requested <= storedVersion;
    }

    private VersionType versionType() {
        return gte ? VersionType.ExternalGte : VersionType.External;
    }

    private void remember(String index, String id, @Nullable String routing, long version) {
        synchronized (deletes) {
            deletes.put(new Key(index, id, routing), new Tombstone(version, nanoClock.getAsLong()));
        }
    }

    private @Nullable Tombstone remembered(String index, String id, @Nullable String routing) {
        synchronized (deletes) {
            Key key = new Key(index, id, routing);
            Tombstone t = deletes.get(key);
            if (t != null && nanoClock.getAsLong() - t.nanos > rememberDeletesFor.toNanos()) {
                deletes.remove(key);
                return null;
            }
            return t;
        }
    }

    /** The remembered delete of the document, forgotten now that a write has been applied over it. */
    private @Nullable Tombstone takeRememberedDelete(String index, String id, @Nullable String routing) {
        synchronized (deletes) {
            Tombstone t = remembered(index, id, routing);
            if (t != null) {
                deletes.remove(new Key(index, id, routing));
            }
            return t;
        }
    }

    private static void checkVersion(long version) {
        if (version < 0) {
            throw new IllegalArgumentException("external versions must be between 0 and 2^63-1, got " + version);
        }
    }

    @Override
    public String toString() {
        return "ExternalVersions{versionType=" + (gte ? "external_gte" : "external") + ", rememberDeletesFor="
                + rememberDeletesFor + ", maxRememberedDeletes=" + maxRememberedDeletes + '}';
    }

    private record Key(String index, String id, @Nullable String routing) {}

    private record Tombstone(long version, long nanos) {}

    /** Builder for {@link ExternalVersions}. Not thread-safe. */
    public static final class Builder {
        private @Nullable ElasticsearchClient client;
        private boolean gte;
        private @Nullable Refresh refresh;
        private Duration rememberDeletesFor = Duration.ofHours(1);
        private int maxRememberedDeletes = 100_000;
        private LongSupplier nanoClock = System::nanoTime;

        private Builder() {}

        /**
         * Required.
         *
         * @param client the client every write goes through; not closed by esrel
         * @return this builder
         * @throws NullPointerException if {@code client} is {@code null}
         */
        public Builder client(ElasticsearchClient client) {
            this.client = Objects.requireNonNull(client, "client cannot be null");
            return this;
        }

        /**
         * Use {@code external_gte} (equal versions accepted) instead of {@code external} (strictly
         * greater). Default false.
         *
         * @param gte true for {@code external_gte}
         * @return this builder
         */
        public Builder greaterOrEqual(boolean gte) {
            this.gte = gte;
            return this;
        }

        /**
         * The {@code refresh} parameter of every write. Default: not sent.
         *
         * @param refresh the refresh mode, or {@code null} to not send the parameter
         * @return this builder
         */
        public Builder refresh(@Nullable Refresh refresh) {
            this.refresh = refresh;
            return this;
        }

        /**
         * How long this instance remembers its own deletes to detect {@code RECREATED}. Default 1 hour.
         *
         * @param d the time a delete is remembered; zero turns the detection off in practice
         * @return this builder
         * @throws NullPointerException if {@code d} is {@code null}
         * @throws IllegalArgumentException if negative
         */
        public Builder rememberDeletesFor(Duration d) {
            Objects.requireNonNull(d, "rememberDeletesFor cannot be null");
            if (d.isNegative()) {
                throw new IllegalArgumentException("rememberDeletesFor must not be negative, got " + d);
            }
            this.rememberDeletesFor = d;
            return this;
        }

        /**
         * The most deletes remembered (the oldest are forgotten first). Default 100,000.
         *
         * @param n the maximum number of remembered deletes; 0 turns the detection off
         * @return this builder
         * @throws IllegalArgumentException if negative
         */
        public Builder maxRememberedDeletes(int n) {
            if (n < 0) {
                throw new IllegalArgumentException("maxRememberedDeletes must not be negative, got " + n);
            }
            this.maxRememberedDeletes = n;
            return this;
        }

        /**
         * The clock for remembered deletes, in nanoseconds. Default {@link System#nanoTime}.
         *
         * @param nanoClock a monotonic clock in nanoseconds (tests pass a fake one)
         * @return this builder
         * @throws NullPointerException if {@code nanoClock} is {@code null}
         */
        public Builder nanoClock(LongSupplier nanoClock) {
            this.nanoClock = Objects.requireNonNull(nanoClock, "nanoClock cannot be null");
            return this;
        }

        /**
         * Builds the writer. The first entry point built on a client's transport sends it one request
         * ({@code GET /}) to check that the server accepts this client line.
         *
         * @return the new writer
         * @throws NullPointerException if no client was set
         * @throws IllegalStateException if the server refuses the requests of this client line (a server
         *     older than the client's major version)
         */
        public ExternalVersions build() {
            return new ExternalVersions(this);
        }
    }
}
