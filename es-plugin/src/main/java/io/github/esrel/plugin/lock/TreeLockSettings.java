package io.github.esrel.plugin.lock;

import io.github.esrel.plugin.lock.store.GrantStore;
import java.util.List;
import org.elasticsearch.common.settings.Setting;
import org.elasticsearch.common.settings.Setting.Property;
import org.elasticsearch.core.TimeValue;

/**
 * Node settings of the tree locks. All but {@link #STORE} are dynamic ({@code PUT _cluster/settings}) as well as
 * settable in {@code elasticsearch.yml}.
 */
public final class TreeLockSettings {

    /** The longest lease a request may ask for; longer {@code ttl}s are refused with a 400, not shortened. */
    public static final Setting<TimeValue> MAX_TTL = Setting.timeSetting(
            "esrel.treelock.max_ttl",
            TimeValue.timeValueHours(1),
            TimeValue.timeValueSeconds(1),
            TimeValue.timeValueDays(365),
            Property.NodeScope,
            Property.Dynamic);

    /** The longest {@code wait} a request may ask for; longer ones are refused with a 400. */
    public static final Setting<TimeValue> MAX_WAIT = Setting.timeSetting(
            "esrel.treelock.max_wait",
            TimeValue.timeValueMinutes(5),
            TimeValue.ZERO,
            TimeValue.timeValueHours(24),
            Property.NodeScope,
            Property.Dynamic);

    /**
     * The most live grants one index's lock table may hold. A change costs the same whatever the table holds
     * ({@link GrantStore}); the limit bounds the memory a node's copy of the table takes (a few hundred bytes a
     * grant) and the time to rebuild it after a failover. A request that would exceed it gets a 429 (after its
     * wait).
     */
    public static final Setting<Integer> MAX_LOCKS_PER_INDEX = Setting.intSetting(
            "esrel.treelock.max_locks_per_index", 100_000, 1, 1_000_000, Property.NodeScope, Property.Dynamic);

    /**
     * How long a lock call keeps retrying while the lock index is unavailable (no primary, its node gone, the
     * cluster failing over) before it answers 503; an acquire's own {@code wait} comes on top. Long enough for a
     * primary failover; shorter makes a lost lock index known sooner.
     */
    public static final Setting<TimeValue> RETRY_TIMEOUT = Setting.timeSetting(
            "esrel.treelock.retry_timeout",
            TimeValue.timeValueSeconds(30),
            TimeValue.timeValueSeconds(1),
            TimeValue.timeValueMinutes(10),
            Property.NodeScope,
            Property.Dynamic);

    /** {@link #STORE}: a head document per namespace and a document per grant (the default). */
    public static final String STORE_GRANTS = "grants";
    /** {@link #STORE}: the whole table of a namespace in one document, rewritten by every change (esrel 0.1). */
    public static final String STORE_TABLE = "table";

    /**
     * How the lock tables are stored: {@value #STORE_GRANTS} (a change writes what it changed, whatever the table
     * holds) or {@value #STORE_TABLE} (the one-document table of esrel 0.1, whose changes cost what the table holds;
     * kept to measure the two side by side, and to fall back to). Every node of a cluster must use the same. A
     * namespace the grants store has written reads as fully locked to the table store, which therefore grants
     * nothing there (it never loses a lock; going back is not supported), while the grants store takes over a
     * table the table store wrote on its first change.
     */
    public static final Setting<String> STORE = Setting.simpleString(
            "esrel.treelock.store",
            STORE_GRANTS,
            value -> {
                if (value.equals(STORE_GRANTS) == false && value.equals(STORE_TABLE) == false) {
                    throw new IllegalArgumentException("[esrel.treelock.store] must be [" + STORE_GRANTS + "] or ["
                            + STORE_TABLE + "], got [" + value + "]");
                }
            },
            Property.NodeScope);

    /** The lease a request without {@code ttl} gets, unless {@link #MAX_TTL} is shorter. */
    public static final TimeValue DEFAULT_TTL = TimeValue.timeValueSeconds(60);

    private TreeLockSettings() {}

    /**
     * The settings to register with Elasticsearch ({@code Plugin.getSettings()}).
     *
     * @return {@link #MAX_TTL}, {@link #MAX_WAIT}, {@link #MAX_LOCKS_PER_INDEX}, {@link #RETRY_TIMEOUT} and
     *     {@link #STORE}
     */
    public static List<Setting<?>> all() {
        return List.of(MAX_TTL, MAX_WAIT, MAX_LOCKS_PER_INDEX, RETRY_TIMEOUT, STORE);
    }
}
