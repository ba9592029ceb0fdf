package io.github.esrel.plugin.lock.grant;

import java.nio.charset.StandardCharsets;
import org.jspecify.annotations.Nullable;

/**
 * Owners are opaque strings chosen by clients ({@code worker-7}, a host and pid, a UUID). The node only
 * compares them; it refuses empty or blank ones, control characters, unpaired surrogates and anything over
 * {@link #MAX_BYTES}.
 */
public final class LockOwner {

    /** The longest owner, in UTF-8 bytes. */
    public static final int MAX_BYTES = 256;

    private LockOwner() {}

    /**
     * What is wrong with {@code owner}, or null if nothing is.
     *
     * @param owner the owner given in a request; {@code null} means it was missing
     * @return a message for a 400 that names the problem, or {@code null} if {@code owner} is acceptable
     */
    public static @Nullable String problem(@Nullable String owner) {
        if (owner == null) {
            return "owner is required, e.g. \"worker-7\"";
        }
        if (owner.isBlank()) {
            return "owner must not be empty or blank";
        }
        int bytes = owner.getBytes(StandardCharsets.UTF_8).length;
        if (bytes > MAX_BYTES) {
            return "owner [" + TreePath.shorten(owner) + "] is too long: " + bytes + " UTF-8 bytes, at most "
                    + MAX_BYTES + " are allowed";
        }
        String charProblem = TreePath.characterProblem(owner);
        if (charProblem != null) {
            return "owner [" + TreePath.shorten(owner) + "] " + charProblem;
        }
        return null;
    }
}
