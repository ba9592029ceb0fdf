package io.github.esrel.plugin.lock;

import java.util.List;
import org.elasticsearch.common.settings.Setting;
import org.elasticsearch.common.settings.Setting.Property;
import org.elasticsearch.core.TimeValue;

/**
 * Node settings of the tree locks. All are dynamic ({@code PUT _cluster/settings}) as well as settable in
 * {@code elasticsearch.yml}.
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
     * The most live grants one index's lock table may hold. The whole table is rewritten on every change, so
     * this bounds the cost of a change too. A request that would exceed it gets a 429 (after its wait).
     */
    public static final Setting<Integer> MAX_LOCKS_PER_INDEX = Setting.intSetting(
            "esrel.treelock.max_locks_per_index", 1000, 1, 100_000, Property.NodeScope, Property.Dynamic);

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

    /** The lease a request without {@code ttl} gets, unless {@link #MAX_TTL} is shorter. */
    public static final TimeValue DEFAULT_TTL = TimeValue.timeValueSeconds(60);

    private TreeLockSettings() {}

    /**
     * The settings to register with Elasticsearch ({@code Plugin.getSettings()}).
     *
     * @return {@link #MAX_TTL}, {@link #MAX_WAIT}, {@link #MAX_LOCKS_PER_INDEX} and {@link #RETRY_TIMEOUT}
     */
    public static List<Setting<?>> all() {
        return List.of(MAX_TTL, MAX_WAIT, MAX_LOCKS_PER_INDEX, RETRY_TIMEOUT);
    }
}
