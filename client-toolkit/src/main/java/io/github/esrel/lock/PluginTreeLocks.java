package io.github.esrel.lock;

import co.elastic.clients.elasticsearch.ElasticsearchClient;
import co.elastic.clients.elasticsearch._types.ElasticsearchException;
import io.github.esrel.internal.Clients;
import io.github.esrel.internal.Plugins;
import io.github.esrel.internal.RestCall;
import io.github.esrel.path.TreePath;
import jakarta.json.JsonArray;
import jakarta.json.JsonNumber;
import jakarta.json.JsonObject;
import jakarta.json.JsonString;
import jakarta.json.JsonValue;
import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * Tree locks served by the esrel plugin ({@code POST /{index}/_treelock/acquire|renew|release},
 * {@code GET /{index}/_treelock}): each grant, renewal and release is one atomic request on the
 * server, which also waits for conflicts to go. Locks live in the plugin's system index.
 *
 * <pre>{@code
 * try (TreeLocks locks = PluginTreeLocks.of(b -> b.client(es).index("fs"))) {
 *     try (TreeLock lock = locks.acquire("/clinton", LockMode.EXCLUSIVE, Duration.ofSeconds(5)).orThrow()) {
 *         ...
 *     }
 * }
 * }</pre>
 *
 * <p><b>Failures.</b> When the lock index stays unavailable the server retries for 30 s and then answers
 * 503 naming what it met; that, and a 502 or 504 on the way, is a {@link TreeLockException} with status
 * 503 whose {@link TreeLockException#retryable()} is true, as {@link DocumentTreeLocks} reports the same
 * outage. {@link LockRequest.Builder#bindToUser} binds a grant to the user the client authenticates as:
 * another user's release or renewal (with the owner and token, through the REST API) is then refused with
 * a 403.
 *
 * <p>The target index must exist: the plugin resolves it (an alias of one index is fine) and
 * namespaces locks by the concrete index. A wait longer than 10 s, or than half the lease, is split into several
 * server-side waits, so no request outlives the HTTP client's socket timeout and a grant arrives with most of its
 * lease left (an auto-renewed grant that arrives after its lease ended is given back, never handed out).
 *
 * <p><b>Lost answers.</b> Each acquisition sends a grant id of its own (random, {@code "grant_id"}) with its acquire
 * and its release, so that a request sent again after its answer was lost, by this provider or by the low-level
 * client on its way to another host, is recognised by the plugin: an acquire it granted is answered with that grant
 * (same token, same lease), a release it made with "released". An acquire whose outcome stays unknown is released by
 * its grant id, which also makes the plugin refuse any late copy of it. A plugin that does not know grant ids (it
 * refuses them with a 400) makes the provider send its requests without them from then on: such requests are not
 * told apart, and a release whose answer was lost and that finds the lock gone when it is sent again fails as
 * unknown rather than as a lost lease. Semantics as in {@link TreeLocks}. Thread-safe.
 */
public final class PluginTreeLocks extends EngineTreeLocks {

    private final Store store;
    private final Store bindingStore;

    PluginTreeLocks(TreeLocks.Builder b) {
        super(new Engine(b));
        ElasticsearchClient client = Clients.internal(Objects.requireNonNull(b.client, "client cannot be null"));
        LostAnswers lostAnswers = new LostAnswers(engine.sleeper);
        AtomicBoolean grantIds = new AtomicBoolean(true);
        this.store = new Store(client, engine.index, false, lostAnswers, grantIds);
        this.bindingStore = new Store(client, engine.index, true, lostAnswers, grantIds);
    }

    /**
     * A provider on the plugin's API; does not check that the plugin is installed (the first request
     * fails with a {@link TreeLockException} saying so if it is not).
     *
     * @param fn sets the options on the builder it is given and returns it (its backend is ignored)
     * @return the new provider; close it when done
     * @throws NullPointerException if the client is not set
     * @throws IllegalArgumentException if the index is not set
     * @throws IllegalStateException if the server refuses every request of this client line (an 8.x
     *     server with elasticsearch-java 9.x, say)
     */
    public static PluginTreeLocks of(Function<TreeLocks.Builder, TreeLocks.Builder> fn) {
        return new PluginTreeLocks(fn.apply(new TreeLocks.Builder()));
    }

    /**
     * True if this cluster serves the tree-lock API: the list endpoint has a handler (it answers for
     * {@code index}, or fails for a reason other than a missing handler, such as a missing index) and
     * every node lists the esrel plugin (when node info may be read).
     *
     * @param client the client to ask with
     * @param index the namespace to ask about (the target index)
     * @return whether the plugin's tree-lock endpoints answer on this cluster
     * @throws TreeLockException if the cluster cannot be asked
     */
    public static boolean available(ElasticsearchClient client, String index) {
        try {
            RestCall.get(base(index), Map.of("path", "/")).send(client);
        } catch (ElasticsearchException e) {
            if (Plugins.isMissingHandler(e)) {
                return false;
            }
            if (e.status() == 401) {
                throw new TreeLockException(
                        "cannot tell whether the esrel plugin serves tree locks: " + e.getMessage(), e.status(), e);
            }
            // Any other error (a missing index, a forbidden action) came from the handler: it is there.
        } catch (IOException e) {
            throw new TreeLockException(
                    "cannot tell whether the esrel plugin serves tree locks: " + e.getMessage(), 0, e);
        }
        try {
            return Plugins.esrelOnEveryNode(client);
        } catch (ElasticsearchException | IOException e) {
            return true; // node info may be forbidden; the endpoint answered
        }
    }

    @Override
    LockStore store() {
        return store;
    }

    @Override
    LockStore store(LockRequest request) {
        return request.bindToUser() ? bindingStore : store;
    }

    @Override
    public Backend backend() {
        return Backend.PLUGIN;
    }

    @Override
    public String toString() {
        return "PluginTreeLocks{index=" + engine.index + ", owner=" + engine.owner + ", ttl=" + engine.ttl + '}';
    }

    private static String base(String index) {
        return "/" + RestCall.segment(index) + "/_treelock";
    }

    /**
     * The REST calls and their answers.
     *
     * @param base the path of the namespace's endpoints, {@code /<index>/_treelock}
     * @param grantIds cleared, for every store of the provider, once a node refuses grant ids (a plugin older than
     *     them)
     */
    record Store(
            ElasticsearchClient client,
            String index,
            String base,
            boolean bindToUser,
            LostAnswers lostAnswers,
            AtomicBoolean grantIds)
            implements LockStore {

        Store(
                ElasticsearchClient client,
                String index,
                boolean bindToUser,
                LostAnswers lostAnswers,
                AtomicBoolean grantIds) {
            this(client, index, PluginTreeLocks.base(index), bindToUser, lostAnswers, grantIds);
        }

        @Override
        public boolean waitsOnServer() {
            return true;
        }

        /**
         * One acquire, with a grant id of its own. Sent again, with the same id, while its answer is lost (the server
         * answers a copy of an acquire it granted with that grant), at most until the lease, counted from the first
         * send, would be over. If the outcome stays unknown, or a copy may still be on its way when the lock is
         * busy, the id is released on the server, so that nothing stays granted that nobody knows of.
         */
        @Override
        public Attempt tryAcquire(TreePath path, LockMode mode, String owner, Duration ttl, Duration serverWait) {
            long first = System.nanoTime();
            long waitEnd = first + serverWait.toNanos();
            String grantId = grantIds.get() ? newGrantId() : null;
            String what = "lock " + mode.jsonName() + " " + path;
            LostAnswers.Sent<RestCall.Answer> sent;
            try {
                sent = lostAnswers.send(
                        () -> acquireOnce(
                                what, path, mode, owner, ttl, Math.max(0, waitEnd - System.nanoTime()), grantId),
                        first + ttl.toNanos());
            } catch (TreeLockException e) {
                // (A 503 the plugin answered after retrying its lock index for 30 s is thrown as it is: its release
                // would wait as long, and fail as surely.)
                if (grantId == null || !LostAnswers.isLost(e)) {
                    throw e;
                }
                // Granted or not, nobody knows: end what the id may hold, and make sure no late copy takes it.
                String settled = settle(path, owner, grantId);
                if (settled != null) {
                    e.addSuppressed(new TreeLockException(settled, 0, null));
                    throw e;
                }
                return Attempt.lost("no answer to the request (" + e.getMessage()
                        + "); whatever it may have been granted was released by its grant id");
            }
            RestCall.Answer a = sent.answer();
            JsonObject o = json(a);
            if (a.status() == 409 || o == null || !JsonValue.TRUE.equals(o.get("acquired"))) {
                if (sent.resent() && grantId != null) {
                    // An earlier copy may still be on its way (a node slow to answer): it must not grant later.
                    settle(path, owner, grantId);
                }
                return Attempt.busy(conflicts(o));
            }
            long token = o.getJsonNumber("token").longValue();
            Instant expiresAt = required(instant(o, "expires_at"), "expires_at");
            return Attempt.granted(new Grant(token, expiresAt, new Ops(this, path, owner, token, grantId)));
        }

        /** One send of the acquire; without the grant id, for good, if the server does not know grant ids. */
        private RestCall.Answer acquireOnce(
                String what,
                TreePath path,
                LockMode mode,
                String owner,
                Duration ttl,
                long waitNanos,
                @Nullable String grantId) {
            Map<String, Object> body = new LinkedHashMap<>();
            body.put("path", path.value());
            body.put("mode", mode.jsonName());
            body.put("owner", owner);
            body.put("ttl", millis(ttl));
            if (waitNanos > 0) {
                body.put("wait", millis(Duration.ofNanos(waitNanos)));
            }
            if (bindToUser) {
                body.put("bind_to_user", true);
            }
            if (grantId != null && grantIds.get()) {
                body.put("grant_id", grantId);
            }
            return post(what, "/acquire", body, 409);
        }

        /**
         * Sends {@code body} to the endpoint; if it has a grant id and a node refuses it (its plugin predates grant
         * ids: during a rolling upgrade, say), grant ids are given up for this provider and the request is sent
         * without it, unless the grant id was all that named the grant.
         */
        private RestCall.Answer post(String what, String endpoint, Map<String, Object> body, int... expected) {
            try {
                return call(what, RestCall.post(base + endpoint, Map.of(), body), expected);
            } catch (TreeLockException e) {
                if (!body.containsKey("grant_id") || !refusesGrantIds(e)) {
                    throw e;
                }
                grantIds.set(false);
                if (endpoint.equals("/release") && !body.containsKey("token")) {
                    throw e;
                }
                Map<String, Object> without = new LinkedHashMap<>(body);
                without.remove("grant_id");
                return call(what, RestCall.post(base + endpoint, Map.of(), without), expected);
            }
        }

        /**
         * Releases whatever {@code grantId} holds on the path, and spends the id (the plugin refuses it to any later
         * acquire); null when done, else why it could not be (the grant, if any, ends with its lease).
         */
        private @Nullable String settle(TreePath path, String owner, String grantId) {
            Map<String, Object> body = Map.of("path", path.value(), "owner", owner, "grant_id", grantId);
            try {
                lostAnswers.send(
                        () -> post("release " + path, "/release", body),
                        System.nanoTime() + Engine.MAX_SERVER_WAIT.toNanos());
                return null;
            } catch (TreeLockException e) {
                return "it may have been granted, and releasing it by its grant id failed (" + e.getMessage()
                        + "): such a lock ends with its lease";
            }
        }

        @Override
        public List<LockInfo> list(TreePath prefix) {
            RestCall.Answer a = call("list locks under " + prefix, RestCall.get(base, Map.of("path", prefix.value())));
            return locks(json(a));
        }

        /**
         * Renew and release of one grant, through the store that granted it. Both are sent again while their answer
         * is lost: a renewal names the grant by its token, and one sent twice only sets the lease once more; a
         * release carries the grant id, and the server answers a release it already made "released".
         */
        private record Ops(
                Store store,
                TreePath path,
                String owner,
                long token,
                @Nullable String grantId) implements Lease.Ops {

            @Override
            public Lease.Renewal renew(Duration ttl) {
                Map<String, Object> body =
                        Map.of("path", path.value(), "owner", owner, "token", token, "ttl", millis(ttl));
                RestCall.Answer a = store.lostAnswers
                        .send(
                                () -> store.call(
                                        "renew " + path,
                                        RestCall.post(store.base + "/renew", Map.of(), body),
                                        404,
                                        409),
                                System.nanoTime() + ttl.toNanos())
                        .answer();
                if (a.status() == 404) {
                    return Lease.Renewal.lost("the server no longer holds " + path + " for token " + token
                            + " (expired or released)" + store.reason(a));
                }
                if (a.status() == 409) {
                    return Lease.Renewal.lost(path + " is held by another owner or token" + store.reason(a));
                }
                JsonObject o = store.json(a);
                return Lease.Renewal.ok(required(o == null ? null : instant(o, "expires_at"), "expires_at"));
            }

            @Override
            public boolean release() {
                Map<String, Object> body = new LinkedHashMap<>();
                body.put("path", path.value());
                body.put("owner", owner);
                body.put("token", token);
                if (grantId != null) {
                    body.put("grant_id", grantId);
                }
                LostAnswers.Sent<RestCall.Answer> sent = store.lostAnswers.send(
                        () -> store.post("release " + path, "/release", body, 404, 409),
                        System.nanoTime() + Engine.MAX_SERVER_WAIT.toNanos());
                if (sent.answer().ok()) {
                    return true;
                }
                if (sent.resent() && grantId == null) {
                    // Without a grant id the server cannot tell its own earlier release from a lease that was lost.
                    throw new TreeLockException(
                            "cannot tell whether " + path + " was held until its release in [" + store.index
                                    + "]: the answer to the release was lost and, sent again, it found the lock gone,"
                                    + " which it is after the first release as after a lost lease (the esrel plugin of"
                                    + " this cluster predates grant ids, which tell them apart)",
                            0,
                            null);
                }
                return false;
            }
        }

        private RestCall.Answer call(String what, RestCall call, int... expected) {
            try {
                return call.exchange(client, expected);
            } catch (ElasticsearchException e) {
                if (Plugins.isMissingHandler(e)) {
                    throw new TreeLockException(
                            "cannot " + what + " in [" + index + "]: the esrel plugin with tree locks"
                                    + " is not installed on this cluster; use DocumentTreeLocks, or TreeLocks.of to pick it",
                            e.status(),
                            e);
                }
                int status = TreeLockException.providerStatus(e.status());
                throw new TreeLockException(
                        "cannot " + what + " in [" + index + "]: "
                                + (status == TreeLockException.UNAVAILABLE
                                        ? "the lock service is unavailable, retry later: "
                                        : "")
                                + e.getMessage(),
                        status,
                        e);
            } catch (IOException e) {
                throw new TreeLockException("cannot " + what + " in [" + index + "]: " + e, 0, e);
            }
        }

        private @Nullable JsonObject json(RestCall.Answer a) {
            if (a.body() == null) {
                return null;
            }
            JsonValue v = a.body().toJson(client._jsonpMapper());
            return v instanceof JsonObject o ? o : null;
        }

        private String reason(RestCall.Answer a) {
            JsonObject o = json(a);
            if (o == null) {
                return "";
            }
            JsonValue error = o.get("error");
            if (error instanceof JsonObject e && e.get("reason") instanceof JsonString r) {
                return ": " + r.getString();
            }
            if (o.get("reason") instanceof JsonString r) {
                return ": " + r.getString();
            }
            return "";
        }
    }

    /** A grant id: random, new for each acquisition (the plugin takes 16 to 128 of {@code [A-Za-z0-9_-]}). */
    static String newGrantId() {
        return UUID.randomUUID().toString();
    }

    /** Whether the server refused a request for its grant id: a plugin that predates them refuses unknown fields. */
    static boolean refusesGrantIds(TreeLockException e) {
        return e.status() == 400 && e.getMessage() != null && e.getMessage().contains("unknown field [grant_id]");
    }

    static String millis(Duration d) {
        return d.toMillis() + "ms";
    }

    static List<LockConflict> conflicts(@Nullable JsonObject o) {
        List<LockConflict> out = new ArrayList<>();
        if (o != null && o.get("conflicts") instanceof JsonArray arr) {
            for (JsonValue v : arr) {
                if (v instanceof JsonObject c) {
                    out.add(new LockConflict(
                            required(string(c, "path"), "path"),
                            mode(string(c, "mode")),
                            string(c, "owner"),
                            instant(c, "expires_at")));
                }
            }
        }
        return out;
    }

    /** The list answer: {@code {"locks": [...]}}, or the array itself. */
    static List<LockInfo> locks(@Nullable JsonObject answer) {
        List<LockInfo> out = new ArrayList<>();
        if (answer == null || !(answer.get("locks") instanceof JsonArray arr)) {
            return out;
        }
        for (JsonValue v : arr) {
            if (!(v instanceof JsonObject l)) {
                continue;
            }
            List<LockInfo.Holder> holders = new ArrayList<>();
            if (l.get("holders") instanceof JsonArray hs) {
                for (JsonValue hv : hs) {
                    if (hv instanceof JsonObject h) {
                        holders.add(new LockInfo.Holder(
                                required(string(h, "owner"), "owner"),
                                number(h, "token"),
                                required(instant(h, "expires_at"), "expires_at")));
                    }
                }
            }
            LockMode mode = mode(string(l, "mode"));
            out.add(new LockInfo(
                    TreePath.of(required(string(l, "path"), "path")), mode == null ? LockMode.SHARED : mode, holders));
        }
        return out;
    }

    /**
     * A field the plugin's answers always carry; without it the answer is not one this client can read (the plugin
     * answered in a shape it does not know).
     */
    private static <V> V required(@Nullable V value, String field) {
        if (value == null) {
            throw new TreeLockException("the esrel plugin's answer has no [" + field + "]", 0, null);
        }
        return value;
    }

    private static @Nullable String string(JsonObject o, String key) {
        JsonValue v = o.get(key);
        return v instanceof JsonString s ? s.getString() : v == null || v == JsonValue.NULL ? null : v.toString();
    }

    private static long number(JsonObject o, String key) {
        JsonValue v = o.get(key);
        if (v instanceof JsonNumber n) {
            return n.longValue();
        }
        if (v instanceof JsonString s) {
            return Long.parseLong(s.getString());
        }
        return -1;
    }

    private static @Nullable LockMode mode(@Nullable String s) {
        try {
            return s == null ? null : LockMode.fromJsonName(s);
        } catch (IllegalArgumentException e) {
            return null;
        }
    }

    /** {@code <key>_millis} if present, else {@code <key>} as ISO-8601 or epoch millis; null if absent. */
    static @Nullable Instant instant(JsonObject o, String key) {
        if (o.get(key + "_millis") instanceof JsonNumber n) {
            return Instant.ofEpochMilli(n.longValue());
        }
        JsonValue v = o.get(key);
        if (v instanceof JsonNumber n) {
            return Instant.ofEpochMilli(n.longValue());
        }
        if (v instanceof JsonString s) {
            try {
                return Instant.parse(s.getString());
            } catch (DateTimeParseException e) {
                try {
                    return Instant.ofEpochMilli(Long.parseLong(s.getString()));
                } catch (NumberFormatException ignored) {
                    return null;
                }
            }
        }
        return null;
    }
}
