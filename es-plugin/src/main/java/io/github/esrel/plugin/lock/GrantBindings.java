package io.github.esrel.plugin.lock;

import io.github.esrel.plugin.lock.grant.AuthenticatedUser;
import io.github.esrel.plugin.lock.grant.TreePath;
import java.util.List;
import org.elasticsearch.ElasticsearchSecurityException;
import org.elasticsearch.rest.RestStatus;
import org.jspecify.annotations.Nullable;

/**
 * Grants bound to a user ({@code "bind_to_user": true} on acquire): only that user may release or renew them,
 * or a user whom Elasticsearch security allows the action {@value #OVERRIDE_ACTION}. That is a cluster action,
 * so the cluster privileges {@code manage} and {@code all} (the {@code superuser} role) include it, and a role
 * can grant it alone ({@code "cluster": ["cluster:admin/esrel/treelock/override_binding"]}). The plugin never
 * decides who is privileged: it asks security by running that action as the caller, and only when a caller
 * meets a grant bound to someone else.
 */
public final class GrantBindings {

    /** The action a caller must be allowed to release or renew a grant bound to another user. */
    public static final String OVERRIDE_ACTION = "cluster:admin/esrel/treelock/override_binding";

    private static final String BOUND_USER = "es.bound_user";
    private static final String BOUND_REALM = "es.bound_realm";

    private GrantBindings() {}

    /**
     * The 403 for a caller who may not act on a grant bound to another user. It names the binding in its
     * metadata ({@code bound_user}, {@code bound_realm} in the error body), which {@link #boundTo} reads back.
     *
     * @param grant   the grant as the caller named it
     * @param boundTo the user the grant is bound to
     * @return a {@code security_exception} with status 403
     */
    public static ElasticsearchSecurityException refused(GrantRef grant, AuthenticatedUser boundTo) {
        ElasticsearchSecurityException e = new ElasticsearchSecurityException(
                "the lock on [{}] in [{}] (owner [{}], token [{}]) is bound to user {}: only that user, or a user allowed the"
                        + " action [{}] (cluster privilege [manage] or [all]), may release or renew it",
                RestStatus.FORBIDDEN,
                TreePath.shorten(grant.path()),
                grant.namespace(),
                TreePath.shorten(grant.owner()),
                grant.token(),
                boundTo,
                OVERRIDE_ACTION);
        e.addMetadata(BOUND_USER, boundTo.name());
        e.addMetadata(BOUND_REALM, boundTo.realm());
        return e;
    }

    /**
     * The binding a {@link #refused} failure names.
     *
     * @param failure a failure of release or renew
     * @return the user the grant is bound to, or null if {@code failure} is not a {@link #refused} one
     */
    public static @Nullable AuthenticatedUser boundTo(Exception failure) {
        if (failure instanceof ElasticsearchSecurityException e) {
            List<String> user = e.getMetadata(BOUND_USER);
            List<String> realm = e.getMetadata(BOUND_REALM);
            if (user != null && realm != null) {
                return new AuthenticatedUser(user.get(0), realm.get(0));
            }
        }
        return null;
    }
}
