package io.github.esrel.plugin.lock.grant;

import org.jspecify.annotations.Nullable;

/**
 * Who asks to release or renew a grant, as far as a grant bound to a user cares.
 *
 * @param user              the authenticated user, or null when there is none (security off)
 * @param overridesBindings whether Elasticsearch security allowed the caller to override bindings (see
 *                          {@code OverrideTreeLockBindingAction}); only then may it act on grants bound to others
 */
public record Caller(@Nullable AuthenticatedUser user, boolean overridesBindings) {

    /**
     * A caller that has not shown it may override bindings.
     *
     * @param user the authenticated user, or null when there is none
     * @return the caller
     */
    public static Caller of(@Nullable AuthenticatedUser user) {
        return new Caller(user, false);
    }

    /**
     * This caller, now known to be allowed to override bindings.
     *
     * @return the caller with {@link #overridesBindings()} set
     */
    public Caller overriding() {
        return new Caller(user, true);
    }
}
