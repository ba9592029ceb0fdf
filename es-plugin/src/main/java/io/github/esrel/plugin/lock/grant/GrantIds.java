package io.github.esrel.plugin.lock.grant;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import org.jspecify.annotations.Nullable;

/**
 * Grant ids: the identity a client gives one acquisition ({@code "grant_id"}), so that the same request sent
 * again (its answer was lost and the client, its HTTP client or a load balancer sent it again, possibly to
 * another node) is recognised as the same request. An acquire whose grant id already holds a live grant is
 * answered with that grant; a release that names it is answered "released" once the grant is gone by its
 * doing; after such a release (or a release by grant id alone) the id grants nothing more.
 *
 * <p>A grant id is stored as the grant's {@link Grant#nonce() nonce}, a 64-bit digest of it: the same mechanism
 * that lets the node recognise its own retried writes. Two different ids share a nonce with a probability of
 * about 2<sup>-64</sup> per pair; an acquire whose nonce matches a grant of another path, mode or owner is refused
 * rather than answered with it.
 *
 * <p>Released ids are remembered for {@link #REMEMBER_MILLIS} after the release, and at most
 * {@link #MAX_REMEMBERED} of them per namespace (the oldest are forgotten first); once forgotten, a resent
 * release is answered as any release of a grant that is gone (404), and a resent acquire is a new acquire.
 */
public final class GrantIds {

    /** The shortest grant id: ids are meant to be random (a UUID, 22 base64url characters). */
    public static final int MIN_LENGTH = 16;
    /** The longest grant id. */
    public static final int MAX_LENGTH = 128;
    /** How long a released grant id is remembered, by the clock of the node that released it. */
    public static final long REMEMBER_MILLIS = 120_000;
    /** The most released grant ids remembered per namespace. */
    public static final int MAX_REMEMBERED = 10_000;

    private GrantIds() {}

    /**
     * What is wrong with {@code grantId}, or null if nothing is.
     *
     * @param grantId the grant id of a request; null when it has none, which is fine
     * @return a message for a 400 that names the problem, or {@code null} if {@code grantId} is acceptable
     */
    public static @Nullable String problem(@Nullable String grantId) {
        if (grantId == null) {
            return null;
        }
        boolean valid = grantId.length() >= MIN_LENGTH && grantId.length() <= MAX_LENGTH;
        for (int i = 0; valid && i < grantId.length(); i++) {
            char c = grantId.charAt(i);
            valid = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '_';
        }
        return valid
                ? null
                : "grant_id must be " + MIN_LENGTH + " to " + MAX_LENGTH
                        + " characters of [A-Za-z0-9_-], random and new for each acquisition (a UUID, say), got ["
                        + TreePath.shorten(grantId) + "]";
    }

    /**
     * The nonce a grant acquired with {@code grantId} is stored with: the first 8 bytes of its SHA-256, never 0.
     *
     * @param grantId a valid grant id
     * @return its nonce
     */
    public static long nonce(String grantId) {
        byte[] digest;
        try {
            digest = MessageDigest.getInstance("SHA-256").digest(grantId.getBytes(StandardCharsets.UTF_8));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e); // every JDK has SHA-256
        }
        long nonce = 0;
        for (int i = 0; i < 8; i++) {
            nonce = (nonce << 8) | (digest[i] & 0xff);
        }
        return nonce == 0 ? 1 : nonce;
    }
}
