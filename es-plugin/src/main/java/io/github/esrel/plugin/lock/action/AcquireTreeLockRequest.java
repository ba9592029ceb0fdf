package io.github.esrel.plugin.lock.action;

import io.github.esrel.plugin.lock.grant.GrantIds;
import io.github.esrel.plugin.lock.grant.LockMode;
import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import org.elasticsearch.action.ActionRequestValidationException;
import org.elasticsearch.action.ValidateActions;
import org.elasticsearch.common.io.stream.StreamInput;
import org.elasticsearch.common.io.stream.StreamOutput;
import org.elasticsearch.core.TimeValue;
import org.elasticsearch.tasks.CancellableTask;
import org.elasticsearch.tasks.Task;
import org.elasticsearch.tasks.TaskId;
import org.elasticsearch.xcontent.XContentParser;
import org.jspecify.annotations.Nullable;

/**
 * {@code POST /{index}/_treelock/acquire {"path", "mode", "owner", "ttl", "wait", "bind_to_user", "grant_id"}}:
 * {@code mode} on the path and shared on each proper ancestor, all or nothing. Its task is cancellable, so a client
 * that goes away stops the wait. With {@code "bind_to_user": true} only the authenticated user who acquires may
 * release or renew the grant (or a user allowed to override bindings, see {@code GrantBindings}). With a
 * {@code "grant_id"} (random, new for each acquisition; see {@link GrantIds}) the same acquire sent again, after its
 * answer was lost, is answered with the grant it already got (same token, same lease), on any node.
 */
public final class AcquireTreeLockRequest extends TreeLockRequest {

    /** A valid body, quoted in the messages for bodies that cannot be read. */
    public static final String EXAMPLE =
            "{\"path\": \"/a/b/c.txt\", \"mode\": \"exclusive\", \"owner\": \"worker-7\", \"ttl\": \"30s\", \"wait\": \"5s\"}";

    private static final Map<String, TreeLockBodyParser.Type> FIELDS = new LinkedHashMap<>();

    static {
        FIELDS.put("path", TreeLockBodyParser.Type.STRING);
        FIELDS.put("mode", TreeLockBodyParser.Type.STRING);
        FIELDS.put("owner", TreeLockBodyParser.Type.STRING);
        FIELDS.put("ttl", TreeLockBodyParser.Type.STRING);
        FIELDS.put("wait", TreeLockBodyParser.Type.STRING);
        FIELDS.put("bind_to_user", TreeLockBodyParser.Type.BOOLEAN);
        FIELDS.put("grant_id", TreeLockBodyParser.Type.STRING);
    }

    private final LockMode mode;

    @Nullable
    private final String owner;

    @Nullable
    private final TimeValue ttl;

    @Nullable
    private final TimeValue wait;

    private final boolean bindToUser;

    @Nullable
    private final String grantId;

    /**
     * Creates a request; {@link #validate()} checks the path, owner and durations.
     *
     * @param index the target index (or an alias of one), the lock namespace
     * @param path  the path to lock
     * @param mode  the mode on {@code path}
     * @param owner the owner of the grant; null if missing, which {@link #validate()} refuses
     * @param ttl   the lease, or null for the default (60 s, or the node's maximum if shorter)
     * @param wait  how long to keep trying while the lock is taken, or null for zero (fail fast)
     * @throws NullPointerException if {@code index} or {@code mode} is null
     */
    public AcquireTreeLockRequest(
            String index,
            @Nullable String path,
            LockMode mode,
            @Nullable String owner,
            @Nullable TimeValue ttl,
            @Nullable TimeValue wait) {
        this(index, path, mode, owner, ttl, wait, false, null);
    }

    /**
     * Creates a request; {@link #validate()} checks the path, owner, durations and grant id.
     *
     * @param index      the target index (or an alias of one), the lock namespace
     * @param path       the path to lock
     * @param mode       the mode on {@code path}
     * @param owner      the owner of the grant; null if missing, which {@link #validate()} refuses
     * @param ttl        the lease, or null for the default (60 s, or the node's maximum if shorter)
     * @param wait       how long to keep trying while the lock is taken, or null for zero (fail fast)
     * @param bindToUser whether to bind the grant to the authenticated user who sends the request
     * @param grantId    the client's identity of this acquisition ({@link GrantIds}), or null for none
     * @throws NullPointerException if {@code index} or {@code mode} is null
     */
    public AcquireTreeLockRequest(
            String index,
            @Nullable String path,
            LockMode mode,
            @Nullable String owner,
            @Nullable TimeValue ttl,
            @Nullable TimeValue wait,
            boolean bindToUser,
            @Nullable String grantId) {
        super(index, path);
        this.mode = Objects.requireNonNull(mode, "mode cannot be null");
        this.owner = owner;
        this.ttl = ttl;
        this.wait = wait;
        this.bindToUser = bindToUser;
        this.grantId = grantId;
    }

    /**
     * Reads a request sent by another node (see {@link #writeTo}).
     *
     * @param in the transport stream
     * @throws IOException if the stream cannot be read
     */
    public AcquireTreeLockRequest(StreamInput in) throws IOException {
        super(in);
        mode = in.readEnum(LockMode.class);
        owner = in.readOptionalString();
        ttl = in.readOptionalTimeValue();
        wait = in.readOptionalTimeValue();
        bindToUser = in.readBoolean();
        grantId = in.readOptionalString();
    }

    @Override
    public void writeTo(StreamOutput out) throws IOException {
        super.writeTo(out);
        out.writeEnum(mode);
        out.writeOptionalString(owner);
        out.writeOptionalTimeValue(ttl);
        out.writeOptionalTimeValue(wait);
        out.writeBoolean(bindToUser);
        out.writeOptionalString(grantId);
    }

    /**
     * Reads the body strictly: an object with the string fields {@code path}, {@code mode}, {@code owner},
     * {@code ttl}, {@code wait} and {@code grant_id} and the boolean {@code bind_to_user}, nothing else. A missing
     * {@code mode} means exclusive, a missing {@code bind_to_user} false, a missing {@code grant_id} none.
     *
     * @param index  the target index from the URL
     * @param parser the parser over the request body
     * @return the request, not yet validated
     * @throws IOException if the body cannot be read; an {@code XContentParseException} (400) for malformed
     *     JSON, wrong types or unknown fields
     * @throws IllegalArgumentException for an unknown {@code mode} or a {@code ttl} or {@code wait} that is not
     *     a duration with a unit
     */
    public static AcquireTreeLockRequest fromXContent(String index, XContentParser parser) throws IOException {
        Map<String, Object> body = TreeLockBodyParser.parse(parser, FIELDS, EXAMPLE);
        String mode = (String) body.get("mode");
        String ttl = (String) body.get("ttl");
        String wait = (String) body.get("wait");
        return new AcquireTreeLockRequest(
                index,
                (String) body.get("path"),
                mode == null ? LockMode.EXCLUSIVE : LockMode.parse(mode),
                (String) body.get("owner"),
                ttl == null ? null : TreeLockBodyParser.duration("ttl", ttl),
                wait == null ? null : TreeLockBodyParser.duration("wait", wait),
                Boolean.TRUE.equals(body.get("bind_to_user")),
                (String) body.get("grant_id"));
    }

    @Override
    public @Nullable ActionRequestValidationException validate() {
        ActionRequestValidationException e = validateOwner(owner, super.validate());
        if (ttl != null && ttl.millis() <= 0) {
            e = ValidateActions.addValidationError("ttl must be at least 1ms, got [" + ttl.getStringRep() + "]", e);
        }
        if (wait != null && wait.duration() < 0) {
            e = ValidateActions.addValidationError("wait must not be negative, got [" + wait.getStringRep() + "]", e);
        }
        return validateGrantId(grantId, e);
    }

    @Override
    public Task createTask(long id, String type, String action, TaskId parentTaskId, Map<String, String> headers) {
        return new CancellableTask(id, type, action, getDescription(), parentTaskId, headers);
    }

    /**
     * The mode to take on the path; shared is taken on its proper ancestors in any case.
     *
     * @return the {@code mode} of the body, exclusive if it had none
     */
    public LockMode mode() {
        return mode;
    }

    /**
     * Who will hold the grant: an opaque string the node only compares.
     *
     * @return the {@code owner} of the body; null if it had none (then {@link #validate()} fails)
     */
    public @Nullable String owner() {
        return owner;
    }

    /**
     * The lease: the grant expires this long after it is made unless renewed.
     *
     * @return the {@code ttl} of the body, or null for the default (60 s, or the node's
     *     {@code esrel.treelock.max_ttl} if shorter)
     */
    public @Nullable TimeValue ttl() {
        return ttl;
    }

    /**
     * How long the node keeps trying while the lock is taken before answering 409. Not named {@code wait}, which
     * {@link Object} already has.
     *
     * @return the {@code wait} of the body, or null for zero (fail fast)
     */
    public @Nullable TimeValue waitTime() {
        return wait;
    }

    /**
     * Whether the grant is bound to the authenticated user who sends the request.
     *
     * @return the {@code bind_to_user} of the body, false if it had none
     */
    public boolean bindToUser() {
        return bindToUser;
    }

    /**
     * The client's identity of this acquisition: the same acquire sent again carries the same one.
     *
     * @return the {@code grant_id} of the body, or null if it had none
     */
    public @Nullable String grantId() {
        return grantId;
    }

    @Override
    public String getDescription() {
        return "acquire " + mode.jsonName() + " tree lock on [" + path() + "] in [" + index() + "] for [" + owner + "]"
                + (bindToUser ? " bound to the user" : "") + (grantId == null ? "" : " grant_id [" + grantId + "]");
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof AcquireTreeLockRequest r
                && index().equals(r.index())
                && Objects.equals(path(), r.path())
                && mode == r.mode
                && Objects.equals(owner, r.owner)
                && Objects.equals(ttl, r.ttl)
                && Objects.equals(wait, r.wait)
                && bindToUser == r.bindToUser
                && Objects.equals(grantId, r.grantId);
    }

    @Override
    public int hashCode() {
        return Objects.hash(index(), path(), mode, owner, ttl, wait, bindToUser, grantId);
    }
}
