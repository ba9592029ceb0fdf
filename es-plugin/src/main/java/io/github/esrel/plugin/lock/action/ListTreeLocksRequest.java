package io.github.esrel.plugin.lock.action;

import io.github.esrel.plugin.lock.grant.TreePath;
import java.io.IOException;
import java.util.Objects;
import org.elasticsearch.action.ActionRequestValidationException;
import org.elasticsearch.action.ValidateActions;
import org.elasticsearch.common.io.stream.StreamInput;
import org.elasticsearch.common.io.stream.StreamOutput;
import org.jspecify.annotations.Nullable;

/**
 * {@code GET /{index}/_treelock[?path=/a][&size=1000][&after=/a/k]}: the live grants on the path or below it (every
 * grant without a path), all of them or a page of {@code size} paths after the path {@code after}.
 */
public final class ListTreeLocksRequest extends TreeLockRequest {

    /** The most paths one page may list: a page of 10,000 exclusive grants is a response of about 1.5 MB. */
    public static final int MAX_SIZE = 10_000;

    @Nullable
    private final String after;

    /** Null: every grant. */
    @Nullable
    private final Integer size;

    /**
     * Creates a request; {@link #validate()} checks a given path.
     *
     * @param index the target index (or an alias of one), the lock namespace
     * @param path the prefix, or null for the whole index
     * @throws NullPointerException if {@code index} is null
     */
    public ListTreeLocksRequest(String index, @Nullable String path) {
        this(index, path, null, null);
    }

    /**
     * Creates a request for a page; {@link #validate()} checks the paths and the size.
     *
     * @param index the target index (or an alias of one), the lock namespace
     * @param path  the prefix, or null for the whole index
     * @param after the last path of the previous page (its {@code next}), or null from the start
     * @param size  the most paths to list, 1 to {@value #MAX_SIZE}, or null for every grant
     * @throws NullPointerException if {@code index} is null
     */
    public ListTreeLocksRequest(String index, @Nullable String path, @Nullable String after, @Nullable Integer size) {
        super(index, path);
        this.after = after;
        this.size = size;
    }

    /**
     * Reads a request sent by another node (see {@link #writeTo}).
     *
     * @param in the transport stream
     * @throws IOException if the stream cannot be read
     */
    public ListTreeLocksRequest(StreamInput in) throws IOException {
        super(in);
        after = in.readOptionalString();
        size = in.readBoolean() ? in.readInt() : null;
    }

    @Override
    public void writeTo(StreamOutput out) throws IOException {
        super.writeTo(out);
        out.writeOptionalString(after);
        out.writeBoolean(size != null);
        if (size != null) {
            out.writeInt(size);
        }
    }

    /**
     * Where the page starts: it lists the paths after this one.
     *
     * @return the {@code after} of the request, or null from the start
     */
    public @Nullable String after() {
        return after;
    }

    /**
     * The most paths the page lists, each with all its holders.
     *
     * @return 1 to {@value #MAX_SIZE}, or null for every grant
     */
    public @Nullable Integer size() {
        return size;
    }

    @Override
    public @Nullable ActionRequestValidationException validate() {
        ActionRequestValidationException e = super.validate();
        if (after != null) {
            String problem = TreePath.problem("after", after);
            if (problem != null) {
                e = ValidateActions.addValidationError(problem, e);
            }
        }
        if (size != null && (size < 1 || size > MAX_SIZE)) {
            e = ValidateActions.addValidationError("size must be between 1 and " + MAX_SIZE + " paths, got " + size, e);
        }
        return e;
    }

    @Override
    protected boolean pathRequired() {
        return false;
    }

    @Override
    public String getDescription() {
        return "list tree locks under [" + (path() == null ? "/" : path()) + "] in [" + index() + "]"
                + (after == null ? "" : " after [" + after + "]")
                + (size == null ? "" : " size [" + size + "]");
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ListTreeLocksRequest r
                && index().equals(r.index())
                && Objects.equals(path(), r.path())
                && Objects.equals(after, r.after)
                && Objects.equals(size, r.size);
    }

    @Override
    public int hashCode() {
        return Objects.hash(index(), path(), after, size);
    }
}
