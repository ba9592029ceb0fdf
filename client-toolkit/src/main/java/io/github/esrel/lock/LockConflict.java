package io.github.esrel.lock;

import java.time.Instant;
import org.jspecify.annotations.Nullable;

/**
 * A live lock that stood in the way of an acquisition: who holds what, and until when its lease runs
 * unless renewed.
 *
 * @param path the locked path for tree locks (the holder's lock, or the path on which the two locks
 *     met: with the plugin it may be either), the document id for {@link DocumentLocks document locks}
 * @param mode the holder's mode ({@code null} if the server did not say)
 * @param owner the holder's owner ({@code null} if the server did not say)
 * @param expiresAt when the holder's lease ends unless renewed ({@code null} if not known)
 */
public record LockConflict(
        String path,
        @Nullable LockMode mode,
        @Nullable String owner,
        @Nullable Instant expiresAt) {

    @Override
    public String toString() {
        return (mode == null ? "lock" : mode.jsonName()) + " " + path + " held by " + owner
                + (expiresAt == null ? "" : " until " + expiresAt);
    }
}
