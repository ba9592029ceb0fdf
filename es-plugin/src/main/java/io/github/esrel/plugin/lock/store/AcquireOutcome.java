package io.github.esrel.plugin.lock.store;

import io.github.esrel.plugin.lock.grant.GrantIds;

/** What an acquire decided: the lock granted, or why not. */
public enum AcquireOutcome {
    /** The lock was granted, or had already been granted to this request (same nonce). */
    GRANTED,
    /** Live grants conflict with the request; the answer is a 409 listing them. */
    CONFLICT,
    /** The table already holds the most live grants allowed; the answer is a 429. */
    FULL,
    /**
     * The request's grant id (its nonce) already names another acquisition: a live grant of another path, mode,
     * owner or binding, or a grant id that was released ({@link GrantIds}); the answer is a 400.
     */
    ID_REUSED
}
