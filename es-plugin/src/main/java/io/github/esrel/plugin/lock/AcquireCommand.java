package io.github.esrel.plugin.lock;

import io.github.esrel.plugin.lock.grant.AuthenticatedUser;
import io.github.esrel.plugin.lock.grant.Grant;
import io.github.esrel.plugin.lock.grant.GrantIds;
import io.github.esrel.plugin.lock.grant.LockMode;
import io.github.esrel.plugin.lock.grant.LockOwner;
import io.github.esrel.plugin.lock.grant.TreePath;
import java.util.Objects;
import org.elasticsearch.core.TimeValue;
import org.jspecify.annotations.Nullable;

/**
 * An acquire as {@link TreeLockService#acquire} takes it: {@code mode} on {@code path} and shared on its proper
 * ancestors, in one namespace.
 *
 * @param namespace the concrete index whose locks these are
 * @param path      the path to lock, valid ({@link TreePath#problem} finds nothing wrong with it)
 * @param mode      the mode on {@code path}
 * @param owner     who will hold the grant, valid ({@link LockOwner#problem} finds nothing wrong with it)
 * @param ttl       the lease, or null for the default (60 s, or the node's maximum if shorter)
 * @param waitTime  how long to keep trying while conflicting grants are live, or null for not at all (not
 *                  named {@code wait}, which {@link Object} already has)
 * @param bindTo    the user to bind the grant to, or null for none (see {@link Grant#boundTo()})
 * @param grantId   the client's identity of this acquisition, valid ({@link GrantIds#problem} finds nothing wrong
 *                  with it), or null for none: the same acquire sent again is then answered with the same grant
 */
public record AcquireCommand(
        String namespace,
        String path,
        LockMode mode,
        String owner,
        @Nullable TimeValue ttl,
        @Nullable TimeValue waitTime,
        @Nullable AuthenticatedUser bindTo,
        @Nullable String grantId) {

    /**
     * Checks that the required components are present.
     *
     * @throws NullPointerException if {@code namespace}, {@code path}, {@code mode} or {@code owner} is null
     */
    public AcquireCommand {
        Objects.requireNonNull(namespace, "namespace cannot be null");
        Objects.requireNonNull(path, "path cannot be null");
        Objects.requireNonNull(mode, "mode cannot be null");
        Objects.requireNonNull(owner, "owner cannot be null");
    }
}
