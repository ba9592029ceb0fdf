package io.github.esrel.plugin.lock.action;

import org.elasticsearch.action.ActionType;

/** Acquires a tree lock (a write on the target index, for security). */
public final class AcquireTreeLockAction {

    public static final String NAME = "indices:data/write/esrel/treelock/acquire";
    public static final ActionType<AcquireTreeLockResponse> INSTANCE = new ActionType<>(NAME);

    private AcquireTreeLockAction() {}
}
