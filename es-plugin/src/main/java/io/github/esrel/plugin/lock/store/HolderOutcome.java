package io.github.esrel.plugin.lock.store;

/** What a release or a renewal decided: done, or why not. */
public enum HolderOutcome {
    /** The grant was released or renewed. */
    DONE,
    /** No live grant on the path: never held, released or expired (404). */
    NOT_HELD,
    /** The path is held, but not by this owner and token (409). */
    HELD_BY_OTHER,
    /** The grant is there, but bound to another user, and the caller may not override bindings (403). */
    BOUND_TO_OTHER_USER
}
