package io.github.esrel.plugin.lock.grant;

import java.io.IOException;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Locale;
import java.util.Objects;
import org.elasticsearch.common.io.stream.StreamInput;
import org.elasticsearch.common.io.stream.StreamOutput;
import org.elasticsearch.common.io.stream.Writeable;
import org.jspecify.annotations.Nullable;

/**
 * One granted lease: {@code mode} on {@code path}, and implicitly shared on every proper ancestor of it.
 *
 * @param path            the locked path
 * @param mode            the mode on {@code path}
 * @param owner           who holds it
 * @param token           the fencing token, unique within the index's lock table and greater than every
 *                        token issued before it there
 * @param expiresAtMillis when the lease ends (epoch milliseconds, the granting node's clock)
 * @param nonce           identifies the request that created the grant, so that a retry of a write whose
 *                        outcome was unknown recognises its own grant: the digest of the request's grant id
 *                        ({@link GrantIds#nonce}), so that the client's resent request recognises it too, or a
 *                        random number for a request without one; never shown to clients
 * @param boundTo         the user the grant is bound to ({@code "bind_to_user": true}): only that user, or one
 *                        allowed to override bindings, may release or renew it; null if anyone may
 */
public record Grant(
        String path,
        LockMode mode,
        String owner,
        long token,
        long expiresAtMillis,
        long nonce,
        @Nullable AuthenticatedUser boundTo)
        implements Writeable {

    private static final DateTimeFormatter ISO = DateTimeFormatter.ofPattern(
                    "uuuu-MM-dd'T'HH:mm:ss.SSS'Z'", Locale.ROOT)
            .withZone(ZoneOffset.UTC);

    /**
     * Checks that the reference components are present.
     *
     * @throws NullPointerException if {@code path}, {@code mode} or {@code owner} is {@code null}
     */
    public Grant {
        Objects.requireNonNull(path, "path cannot be null");
        Objects.requireNonNull(mode, "mode cannot be null");
        Objects.requireNonNull(owner, "owner cannot be null");
    }

    /**
     * A grant bound to no user.
     *
     * @param path            the locked path
     * @param mode            the mode on {@code path}
     * @param owner           who holds it
     * @param token           the fencing token
     * @param expiresAtMillis when the lease ends (epoch milliseconds)
     * @param nonce           the random number of the request that created it
     */
    public Grant(String path, LockMode mode, String owner, long token, long expiresAtMillis, long nonce) {
        this(path, mode, owner, token, expiresAtMillis, nonce, null);
    }

    /**
     * Whether {@code caller} may release or renew this grant: anyone if it is bound to nobody, else the user it
     * is bound to, or anyone the caller has shown may override bindings.
     *
     * @param caller who asks
     * @return {@code true} if the binding lets the caller act on the grant
     */
    public boolean mayBeChangedBy(Caller caller) {
        return boundTo == null || caller.overridesBindings() || boundTo.equals(caller.user());
    }

    /**
     * Whether this grant is what an acquire of {@code mode} on {@code path} for {@code owner}, bound to
     * {@code boundTo}, makes: the test that an acquire whose grant id found this grant is the same acquisition.
     *
     * @param path    the requested path
     * @param mode    the requested mode
     * @param owner   the requested owner
     * @param boundTo the user the request binds the grant to, or null
     * @return {@code true} if path, mode, owner and binding are this grant's
     */
    public boolean isAcquisition(String path, LockMode mode, String owner, @Nullable AuthenticatedUser boundTo) {
        return this.path.equals(path)
                && this.mode == mode
                && this.owner.equals(owner)
                && Objects.equals(this.boundTo, boundTo);
    }

    /**
     * This grant with a new lease end; everything else, its binding included, stays.
     *
     * @param expiresAtMillis the new end of the lease, epoch milliseconds
     * @return the renewed grant
     */
    public Grant withExpiry(long expiresAtMillis) {
        return new Grant(path, mode, owner, token, expiresAtMillis, nonce, boundTo);
    }

    /**
     * Reads a grant written by {@link #writeTo}, as transport messages carry it between nodes.
     *
     * @param in the stream to read from
     * @return the grant read
     * @throws IOException if the stream cannot be read
     */
    public static Grant readFrom(StreamInput in) throws IOException {
        Grant g = new Grant(
                in.readString(),
                in.readEnum(LockMode.class),
                in.readString(),
                in.readLong(),
                in.readLong(),
                in.readLong());
        if (in.readBoolean()) {
            g = new Grant(
                    g.path,
                    g.mode,
                    g.owner,
                    g.token,
                    g.expiresAtMillis,
                    g.nonce,
                    new AuthenticatedUser(in.readString(), in.readString()));
        }
        return g;
    }

    @Override
    public void writeTo(StreamOutput out) throws IOException {
        out.writeString(path);
        out.writeEnum(mode);
        out.writeString(owner);
        out.writeLong(token);
        out.writeLong(expiresAtMillis);
        out.writeLong(nonce);
        out.writeBoolean(boundTo != null);
        if (boundTo != null) {
            out.writeString(boundTo.name());
            out.writeString(boundTo.realm());
        }
    }

    /**
     * Whether the lease is over at {@code nowMillis}: a lease is live while {@code now < expires_at}.
     *
     * @param nowMillis the current time, epoch milliseconds
     * @return {@code true} if the grant has expired and counts as absent
     */
    public boolean expiredAt(long nowMillis) {
        return nowMillis >= expiresAtMillis;
    }

    /**
     * The expiry as ISO-8601 in UTC with milliseconds, e.g. {@code 2025-11-30T12:00:00.000Z}.
     *
     * @return {@link #expiresAtMillis()} formatted, as the {@code expires_at} field of responses shows it
     */
    public String expiresAt() {
        return iso(expiresAtMillis);
    }

    /**
     * Epoch milliseconds as ISO-8601 in UTC with milliseconds.
     *
     * @param epochMillis the instant, epoch milliseconds
     * @return the instant formatted like {@code 2025-11-30T12:00:00.000Z}
     */
    public static String iso(long epochMillis) {
        return ISO.format(Instant.ofEpochMilli(epochMillis));
    }

    /**
     * Whether this grant and a request for {@code mode} on {@code path} cannot both hold. Each takes shared
     * locks on its proper ancestors and its mode on its path, so they conflict exactly when
     * <ul>
     *   <li>the paths are equal and either mode is exclusive,</li>
     *   <li>the requested path is a proper ancestor of this grant's and the request is exclusive, or</li>
     *   <li>this grant's path is a proper ancestor of the requested one and this grant is exclusive.</li>
     * </ul>
     * Proper ancestors common to both are shared by both, which never conflicts.
     *
     * @param otherPath the requested path (valid)
     * @param otherMode the requested mode
     * @return {@code true} if the request conflicts with this grant; expiry is not considered
     */
    public boolean conflictsWith(String otherPath, LockMode otherMode) {
        if (path.equals(otherPath)) {
            return mode == LockMode.EXCLUSIVE || otherMode == LockMode.EXCLUSIVE;
        }
        if (TreePath.isProperAncestor(otherPath, path)) {
            return otherMode == LockMode.EXCLUSIVE;
        }
        if (TreePath.isProperAncestor(path, otherPath)) {
            return mode == LockMode.EXCLUSIVE;
        }
        return false;
    }
}
