package io.github.esrel.plugin.lock.action;

import org.elasticsearch.action.ActionType;

/** Releases a tree lock (a write on the target index, for security). */
public final class ReleaseTreeLockAction {

    public static final String NAME = "indices:data/write/esrel/treelock/release";
    public static final ActionType<ReleaseTreeLockResponse> INSTANCE = new ActionType<>(NAME);

    private ReleaseTreeLockAction() {}
}
