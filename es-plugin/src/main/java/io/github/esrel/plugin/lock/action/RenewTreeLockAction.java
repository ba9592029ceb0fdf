package io.github.esrel.plugin.lock.action;

import org.elasticsearch.action.ActionType;

/** Renews a tree lock's lease (a write on the target index, for security). */
public final class RenewTreeLockAction {

    public static final String NAME = "indices:data/write/esrel/treelock/renew";
    public static final ActionType<RenewTreeLockResponse> INSTANCE = new ActionType<>(NAME);

    private RenewTreeLockAction() {}
}
