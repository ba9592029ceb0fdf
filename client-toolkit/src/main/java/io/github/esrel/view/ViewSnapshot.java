package io.github.esrel.view;

import com.fasterxml.jackson.databind.node.ObjectNode;
import org.jspecify.annotations.Nullable;

/**
 * A view composed from a consistent snapshot of its sources, not written yet
 * ({@link MaterializedView#snapshot}): for rebuilds computed in one place and written in another, or
 * later. Writing it ({@link MaterializedView#write}) is refused as stale if a newer snapshot of the
 * same view was written in between, however late it arrives.
 */
public final class ViewSnapshot {

    private final Rebuilder.Prepared prepared;

    ViewSnapshot(Rebuilder.Prepared prepared) {
        this.prepared = prepared;
    }

    Rebuilder.Prepared prepared() {
        return prepared;
    }

    /**
     * Returns which view this is.
     *
     * @return the view's id (the source document's id)
     */
    public String id() {
        return prepared.ref().id();
    }

    /**
     * Returns the external version it will be written with.
     *
     * @return the clock value at which its sources were read
     */
    public long version() {
        return prepared.version();
    }

    /**
     * Returns the view document that will be written.
     *
     * @return a copy of the whole view document with its bookkeeping, which the caller may change
     *     freely without affecting this snapshot; {@code null} when the source is gone (a delete)
     */
    public @Nullable ObjectNode document() {
        return prepared.document() == null ? null : prepared.document().deepCopy();
    }

    @Override
    public String toString() {
        return "ViewSnapshot{" + id() + " @" + version() + (prepared.document() == null ? ", delete" : "") + '}';
    }
}
