package io.github.esrel.plugin.lock.action;

import io.github.esrel.plugin.lock.LockMode;

import org.elasticsearch.action.ActionRequestValidationException;
import org.elasticsearch.action.ValidateActions;
import org.elasticsearch.common.io.stream.StreamInput;
import org.elasticsearch.common.io.stream.StreamOutput;
import org.elasticsearch.core.Nullable;
import org.elasticsearch.core.TimeValue;
import org.elasticsearch.tasks.CancellableTask;
import org.elasticsearch.tasks.Task;
import org.elasticsearch.tasks.TaskId;
import org.elasticsearch.xcontent.XContentParser;

import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * {@code POST /{index}/_treelock/acquire {"path", "mode", "owner", "ttl", "wait"}}: {@code mode} on the path
 * and shared on each proper ancestor, all or nothing. Its task is cancellable, so a client that goes away
 * stops the wait.
 */
public final class AcquireTreeLockRequest extends TreeLockRequest {

    public static final String EXAMPLE = "{\"path\": \"/a/b/c.txt\", \"mode\": \"exclusive\", \"owner\": \"worker-7\", \"ttl\": \"30s\", \"wait\": \"5s\"}";
    private static final Map<String, TreeLockBodyParser.Type> FIELDS = new LinkedHashMap<>();
    static {
        FIELDS.put("path", TreeLockBodyParser.Type.STRING);
        FIELDS.put("mode", TreeLockBodyParser.Type.STRING);
        FIELDS.put("owner", TreeLockBodyParser.Type.STRING);
        FIELDS.put("ttl", TreeLockBodyParser.Type.STRING);
        FIELDS.put("wait", TreeLockBodyParser.Type.STRING);
    }

    private final LockMode mode;
    @Nullable
    private final String owner;
    @Nullable
    private final TimeValue ttl;
    @Nullable
    private final TimeValue wait;

    /**
     * @param mode  the mode on {@code path}
     * @param ttl   the lease, or null for the default (60 s, or the node's maximum if shorter)
     * @param wait  how long to keep trying while the lock is taken, or null for zero (fail fast)
     */
    public AcquireTreeLockRequest(String index, String path, LockMode mode, String owner, @Nullable TimeValue ttl, @Nullable TimeValue wait) {
        super(index, path);
        this.mode = Objects.requireNonNull(mode, "mode cannot be null");
        this.owner = owner;
        this.ttl = ttl;
        this.wait = wait;
    }

    public AcquireTreeLockRequest(StreamInput in) throws IOException {
        super(in);
        mode = in.readEnum(LockMode.class);
        owner = in.readOptionalString();
        ttl = in.readOptionalTimeValue();
        wait = in.readOptionalTimeValue();
    }

    @Override
    public void writeTo(StreamOutput out) throws IOException {
        super.writeTo(out);
        out.writeEnum(mode);
        out.writeOptionalString(owner);
        out.writeOptionalTimeValue(ttl);
        out.writeOptionalTimeValue(wait);
    }

    /** Reads the body strictly (see {@link TreeLockBodyParser}). */
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
            wait == null ? null : TreeLockBodyParser.duration("wait", wait)
        );
    }

    @Override
    public ActionRequestValidationException validate() {
        ActionRequestValidationException e = validateOwner(owner, super.validate());
        if (ttl != null && ttl.millis() <= 0) {
            e = ValidateActions.addValidationError("ttl must be at least 1ms, got [" + ttl.getStringRep() + "]", e);
        }
        if (wait != null && wait.duration() < 0) {
            e = ValidateActions.addValidationError("wait must not be negative, got [" + wait.getStringRep() + "]", e);
        }
        return e;
    }

    @Override
    public Task createTask(long id, String type, String action, TaskId parentTaskId, Map<String, String> headers) {
        return new CancellableTask(id, type, action, getDescription(), parentTaskId, headers);
    }

    public LockMode mode() {
        return mode;
    }

    @Nullable
    public String owner() {
        return owner;
    }

    @Nullable
    public TimeValue ttl() {
        return ttl;
    }

    @Nullable
    public TimeValue waitTime() {
        return wait;
    }

    @Override
    public String getDescription() {
        return "acquire " + mode.jsonName() + " tree lock on [" + path() + "] in [" + index() + "] for [" + owner + "]";
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof AcquireTreeLockRequest r
            && index().equals(r.index())
            && Objects.equals(path(), r.path())
            && mode == r.mode
            && Objects.equals(owner, r.owner)
            && Objects.equals(ttl, r.ttl)
            && Objects.equals(wait, r.wait);
    }

    @Override
    public int hashCode() {
        return Objects.hash(index(), path(), mode, owner, ttl, wait);
    }
}
