package io.github.esrel.fs;

import co.elastic.clients.elasticsearch.ElasticsearchClient;
import co.elastic.clients.elasticsearch._types.ElasticsearchException;
import co.elastic.clients.elasticsearch._types.FieldValue;
import co.elastic.clients.elasticsearch._types.Refresh;
import co.elastic.clients.elasticsearch._types.ShardStatistics;
import co.elastic.clients.elasticsearch._types.VersionType;
import co.elastic.clients.elasticsearch._types.query_dsl.Query;
import co.elastic.clients.elasticsearch.core.CountResponse;
import co.elastic.clients.elasticsearch.core.IndexRequest;
import co.elastic.clients.elasticsearch.core.MgetResponse;
import co.elastic.clients.elasticsearch.core.SearchResponse;
import co.elastic.clients.elasticsearch.core.mget.MultiGetResponseItem;
import co.elastic.clients.elasticsearch.core.search.Hit;
import io.github.esrel.internal.Checks;
import io.github.esrel.internal.Clients;
import io.github.esrel.internal.Indices;
import io.github.esrel.internal.RestCall;
import io.github.esrel.internal.ShardFailures;
import io.github.esrel.lock.AcquireResult;
import io.github.esrel.lock.TreeLock;
import io.github.esrel.lock.TreeLocks;
import io.github.esrel.path.TreePath;
import jakarta.json.JsonObject;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A file system kept in an Elasticsearch index (seed 000 §1.4–1.5), made safe for concurrent use with
 * tree locks: one document per file ({@link FileDoc}), directories implied by paths, subtree search
 * through {@code path.tree}, and renames that rewrite every file below a directory.
 *
 * <pre>{@code
 * try (TreeLocks locks = TreeLocks.of(b -> b.client(es).index("fs"))) {
 *     FileTree fs = FileTree.of(b -> b.client(es).index("fs").locks(locks));
 *     fs.createIndex();
 *     fs.write("/clinton/projects/elasticsearch/README.txt", "Some text about Elasticsearch");
 *     List<FileDoc> hits = fs.grep("/clinton", "elasticsearch");       // grep -r elasticsearch /clinton
 *     RenameResult r = fs.renameDirectory("/clinton", "/zach");        // mv /clinton /zach
 * }
 * }</pre>
 *
 * <h2>Concurrency</h2>
 * Every write holds an exclusive tree lock: a file write on the file's path, a rename on the source
 * and the target. A rename therefore excludes every write and every other rename anywhere below or
 * above its paths, and is refused (not queued) by default when another process holds a conflicting
 * lock. Locks are leases: if a rename's process stalls past its lease, another process may lock the
 * directory and write. The stale process's late writes are then refused by <em>fencing</em>:
 * <ul>
 *   <li>{@link Fencing#EXTERNAL_VERSION} (with the esrel plugin, whose tokens increase across the
 *       whole namespace): every write carries its lock's token as an external version, so
 *       Elasticsearch refuses a write whose token is not above the one already stored.</li>
 *   <li>{@link Fencing#SEQ_NO} (with the lock-document fallback, whose tokens increase per path only,
 *       so they cannot order writes made under locks on different paths): every rewrite is conditional
 *       on the {@code _seq_no}/{@code _primary_term} the rename read, so a stale rename cannot
 *       overwrite a file a newer writer changed.</li>
 * </ul>
 * The mode is chosen when the index is created and recorded in its mapping's {@code _meta}.
 *
 * <h2>Requests applied twice, or late</h2>
 * A request can reach Elasticsearch more than once: sent again after an I/O error, or run late by a node that was
 * frozen after the caller was told of a failure. Every write here is conditional, so such a copy is refused once
 * anything else was written to the file (its token is no longer above the stored version, or the seq_no it is
 * conditional on has moved), and a copy applied before that writes what the write wrote. A write refused (409) because
 * its own copy was applied first (the client or a load balancer sent the request again) is told from one a newer lock
 * holder overtook by reading the file back: where the write put it, the call reports it done. A new file's id is the first
 * free slot of its path, not a random one: a create that fails and is retried takes the slot its lost copy was sent
 * to, so the copy, arriving late, is refused instead of making a second document for the path. A call that fails with
 * an I/O error may have been applied all the same: {@link #read} tells. One case remains: a lost create that arrives
 * after another file was renamed into its path gives the path two documents, which {@link #read} reports.
 *
 * <p>Files are found by path with a search, so every write refreshes the index ({@code refresh=true})
 * to make the file visible to the next lookup at once. That suits interactive use, not mass imports:
 * bulk-load large trees in this document layout and use the model for renames and edits.
 *
 * <p>Thread-safe; holds no resources of its own.
 */
public final class FileTree {

    private static final Logger log = LoggerFactory.getLogger(FileTree.class);
    /** Slots of a path's file ids read at once when choosing a new file's id; the first is almost always free. */
    private static final int ID_SLOTS_PER_READ = 4;

    /** How late writes of a lock holder whose lease ended are refused. */
    public enum Fencing {
        /** Writes carry the lock's fencing token as {@code version_type=external}. Needs the plugin. */
        EXTERNAL_VERSION,
        /** Rewrites are conditional on the {@code _seq_no}/{@code _primary_term} read. Works everywhere. */
        SEQ_NO
    }

    private final ElasticsearchClient es;
    private final String index;
    private final TreeLocks locks;
    private final int batchSize;
    private final Duration writeLockWait;
    private final RenameLocks renameLocks;
    private final RenameListener listener;
    private volatile @Nullable Layout layout;

    private FileTree(Builder b) {
        this.es = Clients.internal(Objects.requireNonNull(b.client, "client cannot be null"));
        this.index = Objects.requireNonNull(b.index, "index cannot be null");
        this.locks = Objects.requireNonNull(b.locks, "locks cannot be null");
        if (!locks.index().equals(index)) {
            throw new IllegalArgumentException("the tree locks are for namespace [" + locks.index()
                    + "] but the file tree is index [" + index + "]: locks must be taken in the tree's own namespace");
        }
        this.batchSize = b.batchSize;
        this.writeLockWait = b.writeLockWait;
        this.renameLocks = new RenameLocks(locks, b.renameLockWait);
        this.listener = b.listener;
    }

    /**
     * Builds a file tree with a lambda, in the style of the elasticsearch-java client.
     *
     * @param fn sets the options on the builder it is given and returns it
     * @return the new file tree
     * @throws NullPointerException if the client, the index or the locks are missing
     * @throws IllegalArgumentException if the locks are not for the namespace named after the index
     * @throws IllegalStateException if the server refuses every request of this client line
     */
    public static FileTree of(Function<Builder, Builder> fn) {
        return fn.apply(new Builder()).build();
    }

    /**
     * The fencing mode for this tree's lock provider: external versions with the plugin, seq_no otherwise.
     *
     * @return the mode {@link #createIndex()} records for a new index
     */
    public Fencing defaultFencing() {
        return locks.backend() == TreeLocks.Backend.PLUGIN ? Fencing.EXTERNAL_VERSION : Fencing.SEQ_NO;
    }

    /**
     * Creates the index unless it exists: {@code path.tree} analysed by the {@code path_hierarchy}
     * tokenizer when the cluster has it (module analysis-common), else a keyword field the client fills
     * (root {@code subobjects: false} lets {@code path} and {@code path.tree} be two fields).
     *
     * @return the fencing mode in force for the index
     * @throws FsException if the cluster fails or the mapping of the index cannot be read
     * @throws IllegalStateException if an existing index was not created by this method, or is fenced
     *     by external versions while the locks do not come from the plugin
     */
    public Fencing createIndex() {
        try {
            if (!Indices.exists(es, index)) {
                Fencing mode = defaultFencing();
                try {
                    create(Mappings.withTokenizer(mode));
                } catch (ElasticsearchException e) {
                    if (!Mappings.isMissingTokenizer(e)) {
                        throw e;
                    }
                    log.debug("no path_hierarchy tokenizer on this cluster; path.tree is computed by the client");
                    create(Mappings.clientComputed(mode));
                }
            }
        } catch (ElasticsearchException e) {
            if (!Indices.alreadyExists(e)) {
                throw new FsException("cannot create index [" + index + "]: " + e.getMessage(), e);
            }
        } catch (IOException e) {
            throw new FsException("cannot create index [" + index + "]: " + e.getMessage(), e);
        }
        return layout().fencing;
    }

    private void create(String json) throws IOException {
        Indices.create(es, index, json);
    }

    /**
     * Writes (creates or replaces) a file, under an exclusive lock on its path, waiting up to {@link
     * Builder#writeLockWait} for it.
     *
     * @param path the file's absolute, normalised path; not {@code /}
     * @param contents the file's text, not {@code null}
     * @return {@link WriteResult.Status#WRITTEN} with the file as stored, or {@link WriteResult.Status#LOCKED}
     *     with the conflicting locks (their paths, modes and owners) when another process held one for longer
     * @throws IllegalArgumentException if {@code path} is not a valid path or is the root
     * @throws NullPointerException if {@code contents} is {@code null}
     * @throws FsException if the cluster fails, or a newer lock holder wrote the file first (fencing)
     */
    public WriteResult write(String path, String contents) {
        TreePath file = TreePath.of(path);
        if (file.isRoot()) {
            throw new IllegalArgumentException("/ is a directory, not a file");
        }
        Objects.requireNonNull(contents, "contents cannot be null");
        AcquireResult<TreeLock> r = locks.acquire(RenameLocks.exclusive(file, writeLockWait));
        if (!r.acquired()) {
            return WriteResult.locked(r.conflicts());
        }
        TreeLock lock = r.orThrow();
        try {
            Optional<Stored> existing = find(file);
            String id = existing.isPresent() ? existing.get().doc.id() : newFileId(file);
            IndexRequest.Builder<Map<String, Object>> req = new IndexRequest.Builder<Map<String, Object>>()
                    .index(index)
                    .id(id)
                    .document(source(file, contents))
                    .refresh(Refresh.True);
            fence(req, lock.token(), existing.orElse(null));
            long version;
            try {
                version = es.index(req.build()).version();
            } catch (ElasticsearchException e) {
                FileDoc now = e.status() == 409 ? storedById(List.of(id)).get(id) : null;
                if (now != null && now.path().equals(file) && contents.equals(now.contents())) {
                    return WriteResult.written(now); // refused by its own copy, applied first (a resend)
                }
                throw e;
            }
            return WriteResult.written(new FileDoc(id, file, contents, version));
        } catch (IOException | ElasticsearchException e) {
            throw new FsException("cannot write [" + path + "]: " + e.getMessage(), e);
        } finally {
            // Released, not closed: the write was fenced with the token, so a lease lost meanwhile could not have
            // let it overwrite a newer holder's file (that write fails instead).
            lock.release();
        }
    }

    /**
     * The file at this path, if any.
     *
     * @param path the file's absolute, normalised path
     * @return the file, or empty when there is none (always for {@code /})
     * @throws IllegalArgumentException if {@code path} is not a valid path
     * @throws FsException if the cluster fails, or several documents claim the path
     */
    public Optional<FileDoc> read(String path) {
        try {
            return find(TreePath.of(path)).map(s -> s.doc);
        } catch (IOException | ElasticsearchException e) {
            throw new FsException("cannot read [" + path + "]: " + e.getMessage(), e);
        }
    }

    /**
     * {@code grep -r text dir}: files at or below {@code dir} whose contents match {@code text}
     * (full-text match), best first, at most 1,000.
     *
     * @param dir the directory to search, {@code /} for all
     * @param text the text to match against the contents
     * @return the matching files, best first; empty when none match
     * @throws IllegalArgumentException if {@code dir} is not a valid path
     * @throws FsException if the cluster fails
     */
    public List<FileDoc> grep(String dir, String text) {
        TreePath d = TreePath.of(dir);
        try {
            SearchResponse<Map<String, Object>> resp = es.search(
                    s -> s.index(index)
                            .size(1000)
                            .query(q -> q.bool(b -> b.must(m ->
                                            m.match(mt -> mt.field("contents").query(text)))
                                    .filter(below(d)))),
                    SOURCE);
            requireEveryShard(resp.shards(), "search [" + dir + "]");
            List<FileDoc> out = new ArrayList<>();
            resp.hits().hits().forEach(h -> out.add(toDoc(h)));
            return out;
        } catch (IOException | ElasticsearchException e) {
            throw new FsException("cannot search [" + dir + "]: " + e.getMessage(), e);
        }
    }

    /**
     * Files at or below {@code dir} ({@code find dir -type f | wc -l}). Refreshes the index first.
     *
     * @param dir the directory, {@code /} for all
     * @return the number of files
     * @throws IllegalArgumentException if {@code dir} is not a valid path
     * @throws FsException if the cluster fails
     */
    public long count(String dir) {
        TreePath d = TreePath.of(dir);
        try {
            es.indices().refresh(r -> r.index(index));
            CountResponse counted = es.count(c -> c.index(index).query(below(d)));
            requireEveryShard(counted.shards(), "count [" + dir + "]");
            return counted.count();
        } catch (IOException | ElasticsearchException e) {
            throw new FsException("cannot count [" + dir + "]: " + e.getMessage(), e);
        }
    }

    /**
     * {@code mv from to} for one file, under exclusive locks on both paths.
     *
     * @param from the file's current path
     * @param to the file's new path, which must not exist yet
     * @return {@link RenameResult.Status#DONE}; {@link RenameResult.Status#LOCKED} when a path stayed locked
     *     by another process for longer than {@link Builder#renameLockWait}; {@link RenameResult.Status#REFUSED} when there is no file at {@code from}
     *     or {@code to} exists; {@link RenameResult.Status#FENCED} when a newer lock holder changed the
     *     file first
     * @throws IllegalArgumentException if a path is not valid
     * @throws FsException if the cluster fails
     */
    public RenameResult renameFile(String from, String to) {
        TreePath src = TreePath.of(from);
        TreePath dst = TreePath.of(to);
        return renameLocks.run(src, dst, (token, held) -> {
            Optional<Stored> file = find(src);
            if (file.isEmpty()) {
                return refused("no file at " + src);
            }
            if (find(dst).isPresent() || count(dst.value()) > 0) {
                return refused(dst + " already exists");
            }
            IndexRequest.Builder<Map<String, Object>> req = new IndexRequest.Builder<Map<String, Object>>()
                    .index(index)
                    .id(file.get().doc.id())
                    .document(source(dst, file.get().doc.contents()))
                    .refresh(Refresh.True);
            fence(req, token, file.get());
            try {
                es.index(req.build());
            } catch (ElasticsearchException e) {
                FileDoc now = e.status() == 409
                        ? storedById(List.of(file.get().doc.id()))
                                .get(file.get().doc.id())
                        : null;
                if (now != null && now.path().equals(dst)) {
                    // Refused by its own copy, applied first (a resend): renamed.
                    return new RenameResult(
                            RenameResult.Status.DONE, 1, 1, token, List.of(), "renamed " + src + " to " + dst);
                }
                if (e.status() == 409) {
                    return new RenameResult(
                            RenameResult.Status.FENCED,
                            0,
                            1,
                            token,
                            List.of(),
                            "a newer lock holder changed " + src + " first");
                }
                throw e;
            }
            return new RenameResult(RenameResult.Status.DONE, 1, 1, token, List.of(), "renamed " + src + " to " + dst);
        });
    }

    /**
     * {@code mv from to} for a directory: under exclusive tree locks on both paths (waiting up to {@link
     * Builder#renameLockWait} for both), streams every file
     * below {@code from} with a point-in-time and {@code search_after}, and rewrites {@code path} and
     * {@code path.tree} through bulk requests, fenced (see the class comment). Progress goes to the
     * listener. The locks are released at the end, whatever happens.
     *
     * @param from the directory's current path, not {@code /}
     * @param to the directory's new path, which must not exist yet
     * @return {@link RenameResult.Status#DONE}, or why not
     * @throws IllegalArgumentException if a path is not valid, {@code from} is the root, or one path is
     *     inside the other
     * @throws FsException if the cluster fails; files moved before the failure stay moved, and
     *     {@link #continueRenameDirectory} moves the rest
     */
    public RenameResult renameDirectory(String from, String to) {
        return renameDirectory(from, to, false);
    }

    /**
     * Finishes a {@link #renameDirectory} that stopped part way (an {@link FsException}, a
     * {@link RenameResult.Status#FENCED} result, a crash): moves the files still below {@code from} into {@code to},
     * which, unlike for {@code renameDirectory}, may already hold files: those the stopped rename moved (files are
     * moved in place, so each is in exactly one of the two directories). Same locks, fencing and listener. Only call it
     * for a rename you know stopped: it would also merge {@code from} into an unrelated directory {@code to}.
     *
     * @param from the directory being renamed
     * @param to its new path
     * @return {@link RenameResult.Status#DONE} with the files moved by this call, or why not ({@code REFUSED} when
     *     nothing is left below {@code from})
     * @throws IllegalArgumentException if a path is not valid, {@code from} is the root, or one path is inside the other
     * @throws FsException if the cluster fails; call it again
     */
    public RenameResult continueRenameDirectory(String from, String to) {
        return renameDirectory(from, to, true);
    }

    private RenameResult renameDirectory(String from, String to, boolean continuing) {
        TreePath src = TreePath.of(from);
        TreePath dst = TreePath.of(to);
        if (src.isRoot()) {
            throw new IllegalArgumentException("cannot rename /");
        }
        if (src.onSameBranch(dst)) {
            throw new IllegalArgumentException("cannot rename " + src + " to " + dst + ": one is inside the other");
        }
        return renameLocks.run(
                src, dst, (token, held) -> new DirectoryRename(this, src, dst, token, held, continuing).run());
    }

    // ---- internals shared with DirectoryRename

    ElasticsearchClient es() {
        return es;
    }

    String index() {
        return index;
    }

    int batchSize() {
        return batchSize;
    }

    RenameListener listener() {
        return listener;
    }

    /** How the index was created, read once from its mapping's {@code _meta}. */
    record Layout(Fencing fencing, boolean clientComputedTree) {}

    Layout layout() {
        Layout l = layout;
        if (l == null) {
            l = readLayout();
            if (l.fencing == Fencing.EXTERNAL_VERSION && locks.backend() != TreeLocks.Backend.PLUGIN) {
                throw new IllegalStateException(
                        "index [" + index + "] is fenced by external versions from the esrel plugin's"
                                + " namespace-wide tokens, but these locks come from the " + locks.backend()
                                + " provider, whose tokens"
                                + " only increase per path: use the plugin's locks for this index");
            }
            layout = l;
        }
        return l;
    }

    static Query below(TreePath dir) {
        if (dir.isRoot()) {
            return Query.of(q -> q.matchAll(m -> m));
        }
        return Query.of(q -> q.term(t -> t.field("path.tree").value(FieldValue.of(dir.value()))));
    }

    Map<String, Object> source(TreePath file, @Nullable String contents) {
        TreePath dir = file.parent().orElse(TreePath.ROOT);
        Map<String, Object> doc = new LinkedHashMap<>();
        doc.put("name", file.name());
        doc.put("path", dir.value());
        if (layout().clientComputedTree) {
            doc.put("path.tree", dir.hierarchyTokens());
        }
        doc.put("contents", contents);
        return doc;
    }

    /**
     * The stored files of {@code ids} (a realtime multi-get), by id; one not found is left out. Tells a conditional
     * write refused by its own copy, applied first (the same request sent again after an I/O error: the file is where
     * the write put it), from one refused because a newer lock holder wrote first.
     */
    Map<String, FileDoc> storedById(List<String> ids) throws IOException {
        MgetResponse<Map<String, Object>> got = es.mget(m -> m.index(index).ids(ids), SOURCE);
        Map<String, FileDoc> stored = new LinkedHashMap<>();
        for (MultiGetResponseItem<Map<String, Object>> item : got.docs()) {
            if (item.isResult() && item.result().found()) {
                Map<String, Object> src = item.result().source();
                TreePath dir = TreePath.of((String) Objects.requireNonNull(src.get("path"), "path"));
                long version =
                        item.result().version() == null ? 0 : item.result().version();
                stored.put(
                        item.result().id(),
                        new FileDoc(
                                item.result().id(),
                                dir.child((String) Objects.requireNonNull(src.get("name"), "name")),
                                (String) src.get("contents"),
                                version));
            }
        }
        return stored;
    }

    /**
     * The id of a new file: the first free slot of its path, {@code f<hash of the path>}, then {@code -1}, {@code -2},
     * ... (a slot stays taken by a file renamed away, since files move in place). Read in real time under the path's
     * lock.
     *
     * <p>Why not a random id: a create whose request is lost (the call fails) and run late, after the caller wrote the
     * file again, would then make a second document for the path. With the slot, the write that retries takes the slot
     * the lost copy was sent to (nothing else took it: only a create under this path's lock does), so the copy finds
     * it taken and is refused: create-only ({@code SEQ_NO} fencing), or an older token than the stored one
     * ({@code EXTERNAL_VERSION}). Files are never deleted by this class, so a slot once taken stays taken.
     */
    String newFileId(TreePath file) throws IOException {
        String base = "f" + HexFormat.of().formatHex(sha256(file.value()), 0, 16);
        for (int from = 0; ; from += ID_SLOTS_PER_READ) {
            List<String> ids = new ArrayList<>(ID_SLOTS_PER_READ);
            for (int slot = from; slot < from + ID_SLOTS_PER_READ; slot++) {
                ids.add(slot == 0 ? base : base + "-" + slot);
            }
            MgetResponse<Map<String, Object>> got =
                    es.mget(m -> m.index(index).ids(ids).source(c -> c.fetch(false)), SOURCE);
            for (int i = 0; i < ids.size(); i++) {
                MultiGetResponseItem<Map<String, Object>> item = got.docs().get(i);
                if (item.isFailure()) {
                    throw new FsException(
                            "cannot choose an id for " + file + ": reading [" + ids.get(i) + "] failed: "
                                    + item.failure().error().reason(),
                            null);
                }
                if (!item.result().found()) {
                    return ids.get(i);
                }
            }
        }
    }

    private static byte[] sha256(String text) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is part of every JDK", e);
        }
    }

    /** Makes the write conditional: the token as external version, or the seq_no/primary_term read. */
    void fence(IndexRequest.Builder<?> req, long token, @Nullable Stored read) {
        if (layout().fencing == Fencing.EXTERNAL_VERSION) {
            req.version(token).versionType(VersionType.External);
        } else if (read == null) {
            req.opType(co.elastic.clients.elasticsearch._types.OpType.Create);
        } else {
            req.ifSeqNo(read.seqNo).ifPrimaryTerm(read.primaryTerm);
        }
    }

    /** Stored files as maps. */
    static final Class<Map<String, Object>> SOURCE = mapClass();

    /** A class literal of a generic type can only be raw: the one unchecked cast, here. */
    @SuppressWarnings({"unchecked", "rawtypes"})
    private static Class<Map<String, Object>> mapClass() {
        return (Class) Map.class;
    }

    static FileDoc toDoc(Hit<Map<String, Object>> h) {
        Map<String, Object> src = h.source();
        TreePath dir = TreePath.of((String) Objects.requireNonNull(src.get("path"), "path"));
        long version = h.version() == null ? 0 : h.version();
        return new FileDoc(
                h.id(),
                dir.child((String) Objects.requireNonNull(src.get("name"), "name")),
                (String) src.get("contents"),
                version);
    }

    /** A file as read, with what a conditional write needs. */
    record Stored(FileDoc doc, long seqNo, long primaryTerm) {
        static Stored of(Hit<Map<String, Object>> h) {
            return new Stored(
                    toDoc(h), h.seqNo() == null ? -1 : h.seqNo(), h.primaryTerm() == null ? 0 : h.primaryTerm());
        }
    }

    private Optional<Stored> find(TreePath file) throws IOException {
        if (file.isRoot()) {
            return Optional.empty();
        }
        TreePath dir = file.parent().orElse(TreePath.ROOT);
        SearchResponse<Map<String, Object>> resp = es.search(
                s -> s.index(index)
                        .size(2)
                        .version(true)
                        .seqNoPrimaryTerm(true)
                        .query(q -> q.bool(b -> b.filter(
                                        f -> f.term(t -> t.field("path").value(FieldValue.of(dir.value()))))
                                .filter(f -> f.term(t -> t.field("name").value(FieldValue.of(file.name())))))),
                SOURCE);
        // A shard that did not answer may hold the file: "not found" would let a write create a second one.
        requireEveryShard(resp.shards(), "look up " + file);
        List<Hit<Map<String, Object>>> hits = resp.hits().hits();
        if (hits.size() > 1) {
            throw new FsException(
                    hits.size() + " documents claim path " + file + ": the index was written without esrel's locks",
                    null);
        }
        return hits.stream().findFirst().map(Stored::of);
    }

    /** Fails when shards of the index did not answer: what the others said is not the answer. */
    private void requireEveryShard(ShardStatistics shards, String what) {
        String missing = ShardFailures.of(shards);
        if (missing != null) {
            throw new FsException("cannot " + what + " in [" + index + "]: " + missing, null);
        }
    }

    private Layout readLayout() {
        try {
            // Plain JSON: a typed TypeMapping of an older client may not parse what a newer server returns
            // (8.18's fails on a mapping 8.19 writes), and only _meta is needed.
            JsonObject answer = RestCall.get("/" + RestCall.segment(index) + "/_mapping", Map.of())
                    .sendForObject(es);
            JsonObject mappings = answer.isEmpty()
                    ? null
                    : answer.values().iterator().next().asJsonObject().getJsonObject("mappings");
            JsonObject meta = mappings == null ? null : mappings.getJsonObject("_meta");
            if (meta == null || !meta.containsKey(Mappings.FENCING_KEY)) {
                throw new IllegalStateException("index [" + index + "] was not created by FileTree.createIndex()");
            }
            return new Layout(
                    Fencing.valueOf(meta.getString(Mappings.FENCING_KEY)),
                    "client".equals(meta.getString(Mappings.TREE_KEY, null)));
        } catch (IOException | ElasticsearchException e) {
            throw new FsException("cannot read the mapping of [" + index + "]: " + e.getMessage(), e);
        }
    }

    static RenameResult refused(String why) {
        return new RenameResult(RenameResult.Status.REFUSED, 0, 0, 0, List.of(), why);
    }

    @Override
    public String toString() {
        return "FileTree{index=" + index + ", locks=" + locks.backend() + '}';
    }

    /** Builder for {@link FileTree}. */
    public static final class Builder {
        private @Nullable ElasticsearchClient client;
        private @Nullable String index;
        private @Nullable TreeLocks locks;
        private int batchSize = 500;
        private Duration writeLockWait = Duration.ZERO;
        private Duration renameLockWait = Duration.ZERO;
        private RenameListener listener = RenameListener.NO_OP;

        private Builder() {}

        /**
         * Required: the client whose transport (auth, TLS, nodes) is used.
         *
         * @param client the client, not {@code null}
         * @return this builder
         */
        public Builder client(ElasticsearchClient client) {
            this.client = Objects.requireNonNull(client, "client cannot be null");
            return this;
        }

        /**
         * Required: the index holding the files; also the lock namespace.
         *
         * @param index the index name, not blank
         * @return this builder
         * @throws IllegalArgumentException if {@code index} is {@code null} or blank
         */
        public Builder index(String index) {
            if (index == null || index.isBlank()) {
                throw new IllegalArgumentException("index must not be empty");
            }
            this.index = index;
            return this;
        }

        /**
         * Required: the tree locks of the same namespace (the index name).
         *
         * @param locks the tree locks, not {@code null}
         * @return this builder
         */
        public Builder locks(TreeLocks locks) {
            this.locks = Objects.requireNonNull(locks, "locks cannot be null");
            return this;
        }

        /**
         * Files per bulk request in a directory rename. Default 500.
         *
         * @param batchSize the number of files per bulk request (and per search page)
         * @return this builder
         * @throws IllegalArgumentException unless between 1 and 10,000
         */
        public Builder batchSize(int batchSize) {
            this.batchSize = Checks.between(batchSize, 1, 10_000, "batchSize");
            return this;
        }

        /**
         * How long writes and renames wait for busy locks: {@link #writeLockWait} and {@link #renameLockWait}
         * at once. Default zero: refuse at once.
         *
         * @param lockWait the longest wait, zero or positive
         * @return this builder
         * @throws IllegalArgumentException if {@code lockWait} is {@code null} or negative
         */
        public Builder lockWait(Duration lockWait) {
            return writeLockWait(lockWait).renameLockWait(lockWait);
        }

        /**
         * How long a {@link FileTree#write write} waits for the lock on its path. Default zero: a write that
         * finds the file (or a directory above it) locked returns {@link WriteResult.Status#LOCKED} at once,
         * naming the holder.
         *
         * @param wait the longest wait, zero or positive
         * @return this builder
         * @throws IllegalArgumentException if {@code wait} is {@code null} or negative
         */
        public Builder writeLockWait(Duration wait) {
            this.writeLockWait = checkWait("writeLockWait", wait);
            return this;
        }

        /**
         * How long a {@link FileTree#renameDirectory rename} waits for the locks on both its paths, together.
         * Default zero: refuse at once. A rename never holds one path while it waits for the other: it releases
         * what it holds, waits for the busy path, and tries again until both are held or this wait is over.
         *
         * @param wait the longest wait for both locks, zero or positive
         * @return this builder
         * @throws IllegalArgumentException if {@code wait} is {@code null} or negative
         */
        public Builder renameLockWait(Duration wait) {
            this.renameLockWait = checkWait("renameLockWait", wait);
            return this;
        }

        private static Duration checkWait(String name, Duration wait) {
            if (wait == null || wait.isNegative()) {
                throw new IllegalArgumentException(name + " must be zero or positive, got " + wait);
            }
            return wait;
        }

        /**
         * Hears the progress of directory renames. Default {@link RenameListener#NO_OP}.
         *
         * @param listener the listener, not {@code null}
         * @return this builder
         */
        public Builder listener(RenameListener listener) {
            this.listener = Objects.requireNonNull(listener, "listener cannot be null");
            return this;
        }

        /**
         * Creates the file tree. The first entry point built on a transport sends one request
         * ({@code GET /}) to check that the server accepts this client line.
         *
         * @return the new file tree
         * @throws NullPointerException if the client, the index or the locks are missing
         * @throws IllegalArgumentException if the locks are not for the namespace named after the index
         * @throws IllegalStateException if the server refuses every request of this client line
         */
        public FileTree build() {
            return new FileTree(this);
        }
    }
}
