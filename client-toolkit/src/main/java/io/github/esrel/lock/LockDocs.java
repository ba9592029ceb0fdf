package io.github.esrel.lock;

import co.elastic.clients.elasticsearch.ElasticsearchClient;
import co.elastic.clients.elasticsearch._types.ElasticsearchException;
import co.elastic.clients.elasticsearch._types.ShardStatistics;
import co.elastic.clients.elasticsearch._types.mapping.DynamicMapping;
import co.elastic.clients.elasticsearch._types.mapping.TypeMapping;
import co.elastic.clients.elasticsearch.core.BulkResponse;
import co.elastic.clients.elasticsearch.core.GetResponse;
import co.elastic.clients.elasticsearch.core.MgetResponse;
import co.elastic.clients.elasticsearch.core.bulk.BulkOperation;
import co.elastic.clients.elasticsearch.core.bulk.BulkResponseItem;
import co.elastic.clients.elasticsearch.core.get.GetResult;
import co.elastic.clients.elasticsearch.core.mget.MultiGetResponseItem;
import co.elastic.clients.json.JsonData;
import io.github.esrel.internal.Indices;
import io.github.esrel.retry.Backoff;
import io.github.esrel.retry.Sleeper;
import jakarta.json.JsonArray;
import jakarta.json.JsonNumber;
import jakarta.json.JsonObject;
import jakarta.json.JsonString;
import jakarta.json.JsonValue;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * Lock documents and the only way they change: read, decide, write back conditionally
 * ({@code op_type=create} for a new document, {@code if_seq_no}/{@code if_primary_term} for an existing
 * one), and on a version conflict read again. No script, no delete, no by-query API.
 *
 * <p>Document shape ({@code _id} = {@code <namespace>:<key>}, or a SHA-256 of it past 512 bytes):
 * <pre>{@code
 * {"ns": "fs", "kind": "path", "key": "/clinton", "tree": ["/clinton"], "token": 1764504000000017,
 *  "holders": [{"grant": "3f0c…", "owner": "worker-7", "mode": "shared", "token": 1764504000000017,
 *               "expires_at": 1764496800000, "for_path": "/clinton/README.txt", "for_mode": "exclusive"}]}
 * }</pre>
 * {@code token} is the last fencing token issued for the key; holders whose {@code expires_at} (epoch
 * milliseconds, written by the holder's clock) has passed are dead and dropped by the next write.
 * Documents are never deleted.
 */
final class LockDocs {

    static final String KIND_PATH = "path";
    static final String KIND_DOC = "doc";
    /** Elasticsearch's limit on {@code _id}, in UTF-8 bytes. */
    private static final int MAX_ID_BYTES = 512;
    /** Re-reads of one document changed under us before giving up: far beyond any real contention. */
    private static final int MAX_CAS_ROUNDS = 10_000;

    final ElasticsearchClient client;
    final String lockIndex;
    final Clock clock;
    private final boolean createIndex;
    private final Backoff casBackoff;
    private final Sleeper sleeper;
    private final LostAnswers lostAnswers;
    private volatile boolean indexReady;

    LockDocs(ElasticsearchClient client, String lockIndex, Clock clock, boolean createIndex, Sleeper sleeper) {
        this.client = client;
        this.lockIndex = lockIndex;
        this.clock = clock;
        this.createIndex = createIndex;
        this.sleeper = sleeper;
        this.lostAnswers = new LostAnswers(sleeper);
        // Re-reads after a conflicting write: someone else made progress, so start at once and spread out.
        this.casBackoff = Backoff.exponentialWithJitter(Duration.ofMillis(1), 2.0, Duration.ofMillis(50));
    }

    /** A holder entry. {@code forPath}/{@code forMode}: the lock of which this entry is a part. */
    record Holder(
            String grant, String owner, LockMode mode, long token, long expiresAt, String forPath, LockMode forMode) {

        boolean liveAt(long now) {
            return expiresAt > now;
        }

        Holder withExpiry(long expiresAt) {
            return new Holder(grant, owner, mode, token, expiresAt, forPath, forMode);
        }

        LockConflict conflict() {
            return new LockConflict(forPath, forMode, owner, Instant.ofEpochMilli(expiresAt));
        }

        Map<String, Object> toSource() {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("grant", grant);
            m.put("owner", owner);
            m.put("mode", mode.jsonName());
            m.put("token", token);
            m.put("expires_at", expiresAt);
            m.put("for_path", forPath);
            m.put("for_mode", forMode.jsonName());
            return m;
        }

        static Holder of(JsonObject o) {
            return new Holder(
                    o.getString("grant"),
                    o.getString("owner"),
                    LockMode.fromJsonName(o.getString("mode")),
                    o.getJsonNumber("token").longValue(),
                    o.getJsonNumber("expires_at").longValue(),
                    o.getString("for_path", null),
                    LockMode.fromJsonName(o.getString("for_mode", o.getString("mode"))));
        }
    }

    /** What a lock document is about: its identity, written on creation. */
    record Target(
            String ns, String kind, String key, @Nullable List<String> tree) {
        String id() {
            return docId(ns, kind, key);
        }
    }

    /** A lock document as read; {@code seqNo < 0} when it does not exist. */
    record Doc(Target target, long seqNo, long primaryTerm, long token, List<Holder> holders) {
        boolean exists() {
            return seqNo >= 0;
        }

        List<Holder> live(long now) {
            return holders.stream().filter(h -> h.liveAt(now)).toList();
        }

        @Nullable
        Holder holder(String grant) {
            return holders.stream()
                    .filter(h -> h.grant().equals(grant))
                    .findFirst()
                    .orElse(null);
        }
    }

    /**
     * Decides what to do with a lock document as read, knowing whether a write of this update may already have been
     * applied.
     */
    @FunctionalInterface
    interface Decide<R> {
        /**
         * @param doc the document as read
         * @param unsure the change this update wrote last without learning whether it was applied (its answer was
         *     lost, or it met a version conflict, which its own earlier copy, sent again on the way, also causes), or
         *     {@code null}; a decision that recognises its own holder needs nothing else, one that removed its holder
         *     finds it gone either way
         */
        Change<R> decide(Doc doc, @Nullable Change<R> unsure);
    }

    /**
     * A decision on a document as read: write these holders (and the last token) and return
     * {@code result}, or leave the document alone and return {@code result}.
     */
    record Change<R>(boolean write, long token, @Nullable List<Holder> holders, R result) {
        static <R> Change<R> write(long token, List<Holder> holders, R result) {
            return new Change<>(true, token, holders, result);
        }

        static <R> Change<R> none(R result) {
            return new Change<>(false, 0, null, result);
        }
    }

    long now() {
        return clock.millis();
    }

    /**
     * The next fencing token of a key: {@code max(last + 1, now × 1000)}, as the plugin computes it.
     *
     * @throws IllegalStateException if the 64-bit space is used up
     */
    static long nextToken(long last, long now) {
        if (last == Long.MAX_VALUE) {
            throw new IllegalStateException("the fencing token space is exhausted");
        }
        long clock = now > 0 && now < Long.MAX_VALUE / 1000 ? now * 1000 : 0;
        return Math.max(last + 1, clock);
    }

    /**
     * Reads, decides with {@code fn}, writes conditionally; on a version conflict, reads and decides
     * again. The write happens only if nobody changed the document since the read, so what {@code fn}
     * decided holds at the moment of the write: this is what makes each step atomic without scripts.
     *
     * <p>A write whose answer is lost (or that meets a version conflict, which a copy of it the transport sent again
     * meets too when the first was applied) may have been applied: the document is read again and {@code fn} decides
     * again, told of that change. A read or write without an answer is sent again {@link LostAnswers#MAX_SENDS}
     * times at most.
     *
     * @throws TreeLockException if the document cannot be read or written, or kept changing; when the last write's
     *     answer was lost, whether it was applied is not known (the message says so)
     */
    <R> R update(Target target, Decide<R> fn) {
        return update(target, fn, null);
    }

    /** {@link #update(Target, Decide)} after a write of {@code unsure}, whose outcome is not known. */
    private <R> R update(Target target, Decide<R> fn, @Nullable Change<R> unsure) {
        ensureIndex();
        int lost = 0;
        for (int round = 1; ; round++) {
            Doc doc = get(target);
            Change<R> change = fn.decide(doc, unsure);
            if (!change.write()) {
                return change.result();
            }
            Written written = write(doc, change);
            if (written == Written.APPLIED) {
                return change.result();
            }
            unsure = change;
            if (written == Written.LOST && ++lost >= LostAnswers.MAX_SENDS) {
                throw new TreeLockException(
                        "cannot write lock document " + target.id() + " in [" + lockIndex + "]: no answer to " + lost
                                + " writes; whether the last one was applied is not known",
                        0,
                        null);
            }
            if (round >= MAX_CAS_ROUNDS) {
                throw new TreeLockException(
                        "lock document " + target.id() + " in [" + lockIndex + "] kept changing: gave up after " + round
                                + " conflicting writes",
                        409,
                        null);
            }
            pause(written == Written.LOST ? LostAnswers.PAUSES.delay(lost) : casBackoff.delay(Math.min(round, 30)));
        }
    }

    /**
     * {@link #update} of many documents with one multi-get and one bulk request; the documents whose
     * bulk write met a version conflict go through {@link #update} one by one. Results in the order of
     * {@code targets}.
     */
    <R> List<R> updateAll(List<Target> targets, Decide<R> fn) {
        return updateAll(targets, fn, results -> true);
    }

    /**
     * {@link #updateAll(List, Function)}, writing nothing at all unless {@code proceed} accepts the
     * decisions taken on the first read (all or nothing: no write when one document is busy).
     */
    <R> List<R> updateAll(List<Target> targets, Decide<R> fn, java.util.function.Predicate<List<R>> proceed) {
        ensureIndex();
        if (targets.isEmpty()) {
            return List.of();
        }
        List<Doc> docs = getAll(targets);
        List<R> results = new ArrayList<>(targets.size());
        List<BulkOperation> ops = new ArrayList<>();
        List<Integer> written = new ArrayList<>();
        List<Change<R>> changes = new ArrayList<>();
        for (int i = 0; i < docs.size(); i++) {
            Change<R> change = fn.decide(docs.get(i), null);
            results.add(change.result());
            if (change.write()) {
                ops.add(operation(docs.get(i), change));
                written.add(i);
                changes.add(change);
            }
        }
        if (ops.isEmpty() || !proceed.test(results)) {
            return results;
        }
        BulkResponse response;
        try {
            response = client.bulk(b -> b.operations(ops));
        } catch (ElasticsearchException | IOException e) {
            TreeLockException failure = e instanceof IOException io
                    ? failure("write lock documents", io)
                    : failure("write lock documents", (ElasticsearchException) e);
            if (!LostAnswers.isLost(failure)) {
                throw failure;
            }
            // Each write may have been applied: every document is decided again, one by one, knowing that.
            for (int j = 0; j < written.size(); j++) {
                int i = written.get(j);
                results.set(i, update(targets.get(i), fn, changes.get(j)));
            }
            return results;
        }
        List<BulkResponseItem> items = response.items();
        for (int j = 0; j < items.size(); j++) {
            BulkResponseItem item = items.get(j);
            if (item.error() == null) {
                continue;
            }
            int i = written.get(j);
            if (item.status() != 409) {
                throw new TreeLockException(
                        "cannot write lock document " + targets.get(i).id() + " in [" + lockIndex + "]: "
                                + item.error().type() + ": " + item.error().reason(),
                        TreeLockException.providerStatus(item.status()),
                        null);
            }
            // A conflict: another writer's, or this write's own earlier copy (the transport sent it again).
            results.set(i, update(targets.get(i), fn, changes.get(j)));
        }
        return results;
    }

    Doc get(Target target) {
        return lostAnswers
                .send(() -> {
                    try {
                        GetResponse<JsonData> r =
                                client.get(g -> g.index(lockIndex).id(target.id()), JsonData.class);
                        return r.found() ? parse(target, r.source(), r.seqNo(), r.primaryTerm()) : missing(target);
                    } catch (ElasticsearchException e) {
                        throw failure("read lock document " + target.id(), e);
                    } catch (IOException e) {
                        throw failure("read lock document " + target.id(), e);
                    }
                })
                .answer();
    }

    List<Doc> getAll(List<Target> targets) {
        List<String> ids = targets.stream().map(Target::id).toList();
        MgetResponse<JsonData> r = lostAnswers
                .send(() -> {
                    try {
                        return client.mget(m -> m.index(lockIndex).ids(ids), JsonData.class);
                    } catch (ElasticsearchException e) {
                        throw failure("read lock documents", e);
                    } catch (IOException e) {
                        throw failure("read lock documents", e);
                    }
                })
                .answer();
        List<Doc> docs = new ArrayList<>(targets.size());
        for (int i = 0; i < targets.size(); i++) {
            MultiGetResponseItem<JsonData> item = r.docs().get(i);
            if (item.isFailure()) {
                throw new TreeLockException(
                        "cannot read lock document " + ids.get(i) + " in [" + lockIndex + "]: "
                                + item.failure().error().reason(),
                        0,
                        null);
            }
            GetResult<JsonData> g = item.result();
            docs.add(
                    g.found()
                            ? parse(targets.get(i), g.source(), g.seqNo(), g.primaryTerm())
                            : missing(targets.get(i)));
        }
        return docs;
    }

    /** The source of a lock document as JSON. */
    JsonObject source(JsonData data) {
        return data.toJson(client._jsonpMapper()).asJsonObject();
    }

    private Doc parse(Target target, JsonData data, Long seqNo, Long primaryTerm) {
        JsonObject src = source(data);
        return new Doc(target, seqNo, primaryTerm, src.getJsonNumber("token").longValue(), holders(src));
    }

    static List<Holder> holders(JsonObject src) {
        List<Holder> holders = new ArrayList<>();
        if (src.get("holders") instanceof JsonArray arr) {
            for (JsonValue v : arr) {
                holders.add(Holder.of(v.asJsonObject()));
            }
        }
        return holders;
    }

    private static Doc missing(Target target) {
        return new Doc(target, -1, 0, 0, List.of());
    }

    /** How a conditional write ended. */
    private enum Written {
        APPLIED,
        /** A version conflict: someone else's write came first, or this write's own copy, sent again. */
        CONFLICT,
        /** No answer: it may or may not have been applied. */
        LOST
    }

    private <R> Written write(Doc doc, Change<R> change) {
        Map<String, Object> source = sourceOf(doc.target(), change);
        TreeLockException failure;
        try {
            if (doc.exists()) {
                client.index(i -> i.index(lockIndex)
                        .id(doc.target().id())
                        .document(source)
                        .ifSeqNo(doc.seqNo())
                        .ifPrimaryTerm(doc.primaryTerm()));
            } else {
                client.create(c -> c.index(lockIndex).id(doc.target().id()).document(source));
            }
            return Written.APPLIED;
        } catch (ElasticsearchException e) {
            if (e.status() == 409) {
                return Written.CONFLICT;
            }
            failure = failure("write lock document " + doc.target().id(), e);
        } catch (IOException e) {
            failure = failure("write lock document " + doc.target().id(), e);
        }
        if (LostAnswers.isLost(failure)) {
            return Written.LOST;
        }
        throw failure;
    }

    private <R> BulkOperation operation(Doc doc, Change<R> change) {
        Map<String, Object> source = sourceOf(doc.target(), change);
        String id = doc.target().id();
        if (doc.exists()) {
            return BulkOperation.of(o -> o.index(x -> x.index(lockIndex)
                    .id(id)
                    .document(source)
                    .ifSeqNo(doc.seqNo())
                    .ifPrimaryTerm(doc.primaryTerm())));
        }
        return BulkOperation.of(o -> o.create(x -> x.index(lockIndex).id(id).document(source)));
    }

    private static Map<String, Object> sourceOf(Target t, Change<?> change) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("ns", t.ns());
        m.put("kind", t.kind());
        m.put("key", t.key());
        if (t.tree() != null) {
            m.put("tree", t.tree());
        }
        m.put("token", change.token());
        List<Holder> holders = Objects.requireNonNull(change.holders(), "a change that writes has its holders");
        m.put("holders", holders.stream().map(Holder::toSource).toList());
        return m;
    }

    private void pause(Duration delay) {
        try {
            sleeper.sleep(delay);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new TreeLockException("interrupted while updating a lock document", 0, e);
        }
    }

    /** Creates the lock index on first use, if allowed and missing. */
    void ensureIndex() {
        if (indexReady) {
            return;
        }
        synchronized (this) {
            if (indexReady) {
                return;
            }
            try {
                boolean exists = Indices.exists(client, lockIndex);
                if (!exists) {
                    if (!createIndex) {
                        throw new TreeLockException(
                                "the lock index [" + lockIndex + "] does not exist; create it with"
                                        + " DocumentTreeLocks.lockIndexMapping(), or allow createLockIndex(true)",
                                404,
                                null);
                    }
                    // Sent again if its answer is lost: a copy that finds the index created counts as done.
                    boolean created = lostAnswers
                            .send(() -> {
                                try {
                                    client.indices()
                                            .create(c -> c.index(lockIndex)
                                                    .settings(s -> s.numberOfShards("1")
                                                            .autoExpandReplicas("0-1")
                                                            .hidden(true))
                                                    .mappings(mapping()));
                                    return true;
                                } catch (ElasticsearchException e) {
                                    if (!Indices.alreadyExists(e)) {
                                        throw failure("create the lock index", e);
                                    }
                                    return false;
                                } catch (IOException e) {
                                    throw failure("create the lock index", e);
                                }
                            })
                            .answer();
                    exists = !created;
                }
                if (exists) {
                    // Made by another create (another client's, just now, or this one's copy whose answer was
                    // lost): that create waited for the index's primary, this client did not.
                    awaitPrimary();
                }
                indexReady = true;
            } catch (ElasticsearchException e) {
                throw failure("create the lock index", e);
            } catch (IOException e) {
                throw failure("create the lock index", e);
            }
        }
    }

    /**
     * Waits (30 s at most) until the shard of a lock index this client did not create answers, once per provider:
     * the reads of a client that came upon an index just created (by another client, or by this one's copy of the
     * create whose answer was lost, which waited for the shard) would find none yet, a 503. Asked with counts, which
     * the {@code read} privilege permits; past the wait, the reads say what is wrong.
     */
    private void awaitPrimary() throws IOException {
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        for (int round = 1; ; round++) {
            boolean answered;
            try {
                ShardStatistics shards = client.count(c -> c.index(lockIndex)).shards();
                answered = shards.successful().intValue() >= shards.total().intValue();
            } catch (ElasticsearchException e) {
                if (e.status() != TreeLockException.UNAVAILABLE) {
                    throw e;
                }
                answered = false; // no shard to count on yet
            }
            if (answered || System.nanoTime() - deadline >= 0) {
                return;
            }
            pause(casBackoff.delay(Math.min(round, 30)));
        }
    }

    /** Only what searches need is indexed; holders are stored, not indexed. */
    static TypeMapping mapping() {
        return TypeMapping.of(m -> m.dynamic(DynamicMapping.False)
                .properties("ns", p -> p.keyword(k -> k))
                .properties("kind", p -> p.keyword(k -> k))
                .properties("key", p -> p.keyword(k -> k))
                .properties("tree", p -> p.keyword(k -> k))
                .properties("token", p -> p.long_(l -> l))
                .properties("holders", p -> p.object(o -> o.enabled(false))));
    }

    /** {@code ns:key}, or {@code ns:#sha256(key)} when that is longer than Elasticsearch allows. */
    static String docId(String ns, String kind, String key) {
        String prefix = ns + (KIND_PATH.equals(kind) ? ":" : ":" + kind + ":");
        String id = prefix + key;
        if (id.getBytes(StandardCharsets.UTF_8).length <= MAX_ID_BYTES) {
            return id;
        }
        try {
            byte[] hash = MessageDigest.getInstance("SHA-256").digest(key.getBytes(StandardCharsets.UTF_8));
            return prefix + "#" + HexFormat.of().formatHex(hash);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    TreeLockException failure(String what, ElasticsearchException e) {
        return new TreeLockException(
                "cannot " + what + " in [" + lockIndex + "]: " + e.getMessage(),
                TreeLockException.providerStatus(e.status()),
                e);
    }

    TreeLockException failure(String what, IOException e) {
        return new TreeLockException("cannot " + what + " in [" + lockIndex + "]: " + e, 0, e);
    }

    static @Nullable String string(JsonObject o, String key) {
        return o.get(key) instanceof JsonString s ? s.getString() : null;
    }

    static long number(JsonObject o, String key) {
        return o.get(key) instanceof JsonNumber n ? n.longValue() : 0;
    }
}
