package io.github.esrel.plugin.lock.action;

import org.elasticsearch.action.ActionType;

/** Lists the live tree locks of an index (a read on it, for security). */
public final class ListTreeLocksAction {

    public static final String NAME = "indices:data/read/esrel/treelock/list";
    public static final ActionType<ListTreeLocksResponse> INSTANCE = new ActionType<>(NAME);

    private ListTreeLocksAction() {}
}
