package io.github.esrel.plugin.lock;

import java.util.Objects;

/**
 * One grant as its holder names it to release or renew it: where it is, who holds it and the token acquire
 * returned. A grant matches only while it is live.
 *
 * @param namespace the concrete index whose locks these are
 * @param path      the path of the grant
 * @param owner     the owner of the grant
 * @param token     the fencing token of the grant
 */
public record GrantRef(String namespace, String path, String owner, long token) {

    /**
     * Checks that the required components are present.
     *
     * @throws NullPointerException if {@code namespace}, {@code path} or {@code owner} is null
     */
    public GrantRef {
        Objects.requireNonNull(namespace, "namespace cannot be null");
        Objects.requireNonNull(path, "path cannot be null");
        Objects.requireNonNull(owner, "owner cannot be null");
    }
}
