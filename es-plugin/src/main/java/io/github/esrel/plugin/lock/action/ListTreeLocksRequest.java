package io.github.esrel.plugin.lock.action;

import java.io.IOException;
import java.util.Objects;
import org.elasticsearch.common.io.stream.StreamInput;
import org.elasticsearch.core.Nullable;

/** {@code GET /{index}/_treelock[?path=/a]}: the live grants on the path or below it (every grant without a path). */
public final class ListTreeLocksRequest extends TreeLockRequest {

    /**
     * Creates a request; {@link #validate()} checks a given path.
     *
     * @param index the target index (or an alias of one), the lock namespace
     * @param path the prefix, or null for the whole index
     * @throws NullPointerException if {@code index} is null
     */
    public ListTreeLocksRequest(String index, @Nullable String path) {
        super(index, path);
    }

    /**
     * Reads a request sent by another node (see {@link #writeTo}).
     *
     * @param in the transport stream
     * @throws IOException if the stream cannot be read
     */
    public ListTreeLocksRequest(StreamInput in) throws IOException {
        super(in);
    }

    @Override
    protected boolean pathRequired() {
        return false;
    }

    @Override
    public String getDescription() {
        return "list tree locks under [" + (path() == null ? "/" : path()) + "] in [" + index() + "]";
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ListTreeLocksRequest r && index().equals(r.index()) && Objects.equals(path(), r.path());
    }

    @Override
    public int hashCode() {
        return Objects.hash(index(), path());
    }
}
