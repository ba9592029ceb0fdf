package io.github.esrel.plugin.lock.action;

import io.github.esrel.plugin.lock.grant.GrantIds;
import io.github.esrel.plugin.lock.grant.LockOwner;
import io.github.esrel.plugin.lock.grant.TreePath;
import java.io.IOException;
import java.util.Objects;
import org.elasticsearch.action.ActionRequest;
import org.elasticsearch.action.ActionRequestValidationException;
import org.elasticsearch.action.IndicesRequest;
import org.elasticsearch.action.ValidateActions;
import org.elasticsearch.action.support.IndicesOptions;
import org.elasticsearch.common.io.stream.StreamInput;
import org.elasticsearch.common.io.stream.StreamOutput;
import org.jspecify.annotations.Nullable;

/**
 * What every tree lock request has: the target index, which is the lock namespace, and a path. It is an
 * {@link IndicesRequest}, so Elasticsearch security authorizes it against the target index.
 */
public abstract class TreeLockRequest extends ActionRequest implements IndicesRequest {

    /**
     * One existing index (or an alias of exactly one), named exactly: no wildcards, and a missing index is a
     * 404. Closed indices are allowed, locks do not touch their data.
     */
    static final IndicesOptions INDICES_OPTIONS = IndicesOptions.fromOptions(false, false, false, false);

    private final String index;

    @Nullable
    private final String path;

    protected TreeLockRequest(String index, @Nullable String path) {
        this.index = Objects.requireNonNull(index, "index cannot be null");
        this.path = path;
    }

    protected TreeLockRequest(StreamInput in) throws IOException {
        super(in);
        index = in.readString();
        path = in.readOptionalString();
    }

    @Override
    public void writeTo(StreamOutput out) throws IOException {
        super.writeTo(out);
        out.writeString(index);
        out.writeOptionalString(path);
    }

    /**
     * The index named in the request (the lock namespace is the concrete index it resolves to).
     *
     * @return the {@code {index}} of the URL, as given: an index or an alias of one index
     */
    public String index() {
        return index;
    }

    /**
     * The path; null only where it is optional (listing).
     *
     * @return the path as the request gives it (the body's {@code path}, the listing's {@code ?path=});
     *     checked by {@link #validate()}
     */
    @Nullable
    public String path() {
        return path;
    }

    @Override
    public String[] indices() {
        return new String[] {index};
    }

    @Override
    public IndicesOptions indicesOptions() {
        return INDICES_OPTIONS;
    }

    @Override
    public @Nullable ActionRequestValidationException validate() {
        ActionRequestValidationException e = null;
        if (index.isEmpty()) {
            e = ValidateActions.addValidationError("index is required, e.g. POST /my-index/_treelock/acquire", e);
        }
        if (pathRequired() || path != null) {
            String problem = TreePath.problem("path", path);
            if (problem != null) {
                e = ValidateActions.addValidationError(problem, e);
            }
        }
        return e;
    }

    /** Whether {@link #path} is required. */
    protected boolean pathRequired() {
        return true;
    }

    /** Adds the owner's problem, if any. */
    static @Nullable ActionRequestValidationException validateOwner(
            @Nullable String owner, @Nullable ActionRequestValidationException e) {
        String problem = LockOwner.problem(owner);
        return problem == null ? e : ValidateActions.addValidationError(problem, e);
    }

    /** Adds the grant id's problem, if any. */
    static @Nullable ActionRequestValidationException validateGrantId(
            @Nullable String grantId, @Nullable ActionRequestValidationException e) {
        String problem = GrantIds.problem(grantId);
        return problem == null ? e : ValidateActions.addValidationError(problem, e);
    }

    /** Adds a problem with a token, if any: tokens are positive. */
    static @Nullable ActionRequestValidationException validateToken(
            long token, @Nullable ActionRequestValidationException e) {
        return token > 0
                ? e
                : ValidateActions.addValidationError(
                        "token must be a positive integer as returned by acquire, got " + token, e);
    }
}
