package io.github.esrel.spring.boot.autoconfigure;

import io.github.esrel.lock.TreeLocks;
import io.github.esrel.retry.Backoff;
import io.github.esrel.routing.RoutingClient;
import java.time.Duration;
import java.util.Objects;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * The {@code esrel.*} properties: what an operator tunes. Every default is the core's own (written as literals, so that
 * the configuration processor can record them; a test checks them against the core's constants), so an application with no
 * {@code esrel.*} property gets the objects it would build with the builders' defaults; what no property covers is set
 * with a customizer bean ({@link OccCustomizer}, {@link TreeLocksCustomizer}, ...).
 */
@ConfigurationProperties(prefix = "esrel")
public class EsrelProperties {

    /** Whether esrel's auto-configuration is active (its beans, health and meters). */
    private boolean enabled = true;

    private final OccProperties occ = new OccProperties();
    private final LocksProperties locks = new LocksProperties();
    private final RoutingProperties routing = new RoutingProperties();
    private final JoinProperties join = new JoinProperties();
    private final PropagationProperties propagation = new PropagationProperties();
    private final HealthProperties health = new HealthProperties();
    private final ShedLockProperties shedlock = new ShedLockProperties();

    /** Creates the properties with the core's defaults. */
    public EsrelProperties() {}

    /**
     * {@code esrel.enabled}.
     *
     * @return whether the auto-configuration is active
     */
    public boolean isEnabled() {
        return enabled;
    }

    /**
     * {@code esrel.enabled}.
     *
     * @param enabled false to switch esrel's auto-configuration off
     */
    public void setEnabled(boolean enabled) {
        this.enabled = enabled;
    }

    /**
     * {@code esrel.shedlock.*}.
     *
     * @return the settings of the ShedLock {@code LockProvider} bean
     */
    public ShedLockProperties getShedlock() {
        return shedlock;
    }

    /**
     * {@code esrel.occ.*}.
     *
     * @return the settings of the {@code Occ} bean
     */
    public OccProperties getOcc() {
        return occ;
    }

    /**
     * {@code esrel.locks.*}.
     *
     * @return the settings of the {@code TreeLocks} bean
     */
    public LocksProperties getLocks() {
        return locks;
    }

    /**
     * {@code esrel.routing.*}.
     *
     * @return the settings of the {@code RoutingClient} bean
     */
    public RoutingProperties getRouting() {
        return routing;
    }

    /**
     * {@code esrel.join.*}.
     *
     * @return the defaults of the joins built with {@link JoinDefaults}
     */
    public JoinProperties getJoin() {
        return join;
    }

    /**
     * {@code esrel.propagation.*}.
     *
     * @return the defaults of the propagators built with {@link PropagationDefaults}
     */
    public PropagationProperties getPropagation() {
        return propagation;
    }

    /**
     * {@code esrel.health.*}.
     *
     * @return the settings of the {@code esrel} health contributor
     */
    public HealthProperties getHealth() {
        return health;
    }

    /** A jittered exponential backoff ({@link Backoff#exponentialWithJitter}): each delay uniform in [d/2, d]. */
    public static class BackoffProperties {

        /** The first delay, before jitter. */
        private @Nullable Duration initial;

        /** The cap on any delay, before jitter. */
        private @Nullable Duration max;

        /** The factor between two consecutive delays. */
        private double multiplier = 2.0;

        /** Creates the properties without delays: the owner sets its own defaults ({@link #of}). */
        public BackoffProperties() {}

        static BackoffProperties of(Duration initial, Duration max) {
            BackoffProperties p = new BackoffProperties();
            p.initial = initial;
            p.max = max;
            return p;
        }

        /**
         * The first delay.
         *
         * @return the first delay, before jitter
         */
        public @Nullable Duration getInitial() {
            return initial;
        }

        /**
         * The first delay.
         *
         * @param initial the first delay, before jitter
         */
        public void setInitial(Duration initial) {
            this.initial = initial;
        }

        /**
         * The cap.
         *
         * @return the cap on any delay, before jitter
         */
        public @Nullable Duration getMax() {
            return max;
        }

        /**
         * The cap.
         *
         * @param max the cap on any delay, before jitter
         */
        public void setMax(Duration max) {
            this.max = max;
        }

        /**
         * The growth factor.
         *
         * @return the factor between two consecutive delays
         */
        public double getMultiplier() {
            return multiplier;
        }

        /**
         * The growth factor.
         *
         * @param multiplier the factor between two consecutive delays, at least 1
         */
        public void setMultiplier(double multiplier) {
            this.multiplier = multiplier;
        }

        /** The backoff these properties describe. */
        Backoff toBackoff() {
            // Set by of(...) for every backoff of these properties; only a bound instance of the public constructor
            // lacks them.
            return Backoff.exponentialWithJitter(
                    Objects.requireNonNull(initial, "initial cannot be null"),
                    multiplier,
                    Objects.requireNonNull(max, "max cannot be null"));
        }
    }

    /** {@code esrel.occ.*}: the {@code Occ} bean's retry policy and write combining. */
    public static class OccProperties {

        /** Attempts per operation before it gives up, the first included. */
        private int maxAttempts = 100;

        /** The longest one operation keeps retrying conflicts (409) and rejections (429). */
        private Duration deadline = Duration.ofSeconds(30);

        /** The pause between attempts. */
        private final BackoffProperties backoff = BackoffProperties.of(Duration.ofMillis(5), Duration.ofMillis(500));

        /**
         * Whether concurrent update, upsert and deleteIf calls of one document through the bean queue behind one
         * conditional write and are applied together.
         */
        private boolean combineWrites = true;

        /** Whether a miss is checked for the same id under another routing (one search per miss). */
        private boolean routingCheck = true;

        /**
         * The field of the write log ({@code Occ.Builder.writeLog}), such as {@code _esrel_writes}: a write whose
         * answer was lost is then reported applied or retried as the document's log shows (not unknown), and a copy of
         * a write sent by a proxy or by Elasticsearch itself is recognised, not applied twice. Unset: no log (esrel's
         * writes are still never sent twice by the client; see {@code Occ.Builder.writeLog(boolean)}).
         */
        private @Nullable String writeLog;

        /** Creates the properties with the core's defaults. */
        public OccProperties() {}

        /**
         * Attempts per operation.
         *
         * @return attempts per operation, the first included
         */
        public int getMaxAttempts() {
            return maxAttempts;
        }

        /**
         * Attempts per operation.
         *
         * @param maxAttempts attempts per operation, the first included; at least 1
         */
        public void setMaxAttempts(int maxAttempts) {
            this.maxAttempts = maxAttempts;
        }

        /**
         * The retry deadline.
         *
         * @return the longest one operation keeps retrying
         */
        public Duration getDeadline() {
            return deadline;
        }

        /**
         * The retry deadline.
         *
         * @param deadline the longest one operation keeps retrying, positive
         */
        public void setDeadline(Duration deadline) {
            this.deadline = deadline;
        }

        /**
         * {@code esrel.occ.backoff.*}.
         *
         * @return the pause between attempts
         */
        public BackoffProperties getBackoff() {
            return backoff;
        }

        /**
         * Write combining.
         *
         * @return whether concurrent calls of one document are combined
         */
        public boolean isCombineWrites() {
            return combineWrites;
        }

        /**
         * Write combining.
         *
         * @param combineWrites false to give every call its own read-modify-write loop
         */
        public void setCombineWrites(boolean combineWrites) {
            this.combineWrites = combineWrites;
        }

        /**
         * The routing check.
         *
         * @return whether a miss is checked for the same id under another routing
         */
        public boolean isRoutingCheck() {
            return routingCheck;
        }

        /**
         * The routing check.
         *
         * @param routingCheck false to skip the search, so that a miss is simply not found
         */
        public void setRoutingCheck(boolean routingCheck) {
            this.routingCheck = routingCheck;
        }

        /**
         * The write log's field.
         *
         * @return the field of the write log, or {@code null} for none
         */
        public @Nullable String getWriteLog() {
            return writeLog;
        }

        /**
         * The write log's field.
         *
         * @param writeLog the field in which each document keeps esrel's last writes; {@code null} or blank for none
         */
        public void setWriteLog(@Nullable String writeLog) {
            this.writeLog = writeLog;
        }
    }

    /** {@code esrel.locks.*}: the {@code TreeLocks} bean, made only when {@code esrel.locks.namespace} is set. */
    public static class LocksProperties {

        /**
         * The namespace of the TreeLocks bean: the (existing) index whose paths are locked. No TreeLocks bean without
         * it.
         */
        private @Nullable String namespace;

        /**
         * Which implementation serves the locks: auto (the plugin when every node has it, else lock documents),
         * plugin, or documents. Chosen once, when the bean is made.
         */
        private TreeLocks.Backend provider = TreeLocks.Backend.AUTO;

        /** The lease of locks requested without one. */
        private Duration ttl = Duration.ofSeconds(60);

        /** The owner of locks requested without one; default host name, process id and a random part. */
        private @Nullable String owner;

        /** The pause between attempts while a request waits for conflicting locks to go. */
        private final BackoffProperties waitBackoff =
                BackoffProperties.of(Duration.ofMillis(10), Duration.ofMillis(500));

        /** Daemon threads that renew leases in the background. */
        private int renewalThreads = 1;

        /** Documents provider only: the index holding the lock documents of every namespace. */
        private String lockIndex = "esrel-treelocks";

        /** Documents provider only: whether to create the lock index on first use. */
        private boolean createLockIndex = true;

        /** Creates the properties with the core's defaults. */
        public LocksProperties() {}

        /**
         * The namespace.
         *
         * @return the index whose paths are locked, or {@code null} for no TreeLocks bean
         */
        public @Nullable String getNamespace() {
            return namespace;
        }

        /**
         * The namespace.
         *
         * @param namespace the index whose paths are locked
         */
        public void setNamespace(@Nullable String namespace) {
            this.namespace = namespace;
        }

        /**
         * The provider.
         *
         * @return which implementation serves the locks
         */
        public TreeLocks.Backend getProvider() {
            return provider;
        }

        /**
         * The provider.
         *
         * @param provider which implementation serves the locks
         */
        public void setProvider(TreeLocks.Backend provider) {
            this.provider = provider;
        }

        /**
         * The default lease.
         *
         * @return the lease of locks requested without one
         */
        public Duration getTtl() {
            return ttl;
        }

        /**
         * The default lease.
         *
         * @param ttl the lease of locks requested without one, positive
         */
        public void setTtl(Duration ttl) {
            this.ttl = ttl;
        }

        /**
         * The default owner.
         *
         * @return the owner of locks requested without one, or {@code null} for the core's
         */
        public @Nullable String getOwner() {
            return owner;
        }

        /**
         * The default owner.
         *
         * @param owner the owner of locks requested without one
         */
        public void setOwner(@Nullable String owner) {
            this.owner = owner;
        }

        /**
         * {@code esrel.locks.wait-backoff.*}.
         *
         * @return the pause between attempts while waiting
         */
        public BackoffProperties getWaitBackoff() {
            return waitBackoff;
        }

        /**
         * Renewal threads.
         *
         * @return the daemon threads that renew leases
         */
        public int getRenewalThreads() {
            return renewalThreads;
        }

        /**
         * Renewal threads.
         *
         * @param renewalThreads the daemon threads that renew leases, at least 1
         */
        public void setRenewalThreads(int renewalThreads) {
            this.renewalThreads = renewalThreads;
        }

        /**
         * The fallback's lock index.
         *
         * @return the index holding the lock documents
         */
        public String getLockIndex() {
            return lockIndex;
        }

        /**
         * The fallback's lock index.
         *
         * @param lockIndex the index holding the lock documents
         */
        public void setLockIndex(String lockIndex) {
            this.lockIndex = lockIndex;
        }

        /**
         * Whether the fallback creates its lock index.
         *
         * @return whether the lock index is created on first use
         */
        public boolean isCreateLockIndex() {
            return createLockIndex;
        }

        /**
         * Whether the fallback creates its lock index.
         *
         * @param createLockIndex false to require an existing lock index
         */
        public void setCreateLockIndex(boolean createLockIndex) {
            this.createLockIndex = createLockIndex;
        }
    }

    /** {@code esrel.routing.*}: the {@code RoutingClient} bean. */
    public static class RoutingProperties {

        /** Where routing parameters are read from: auto (the plugin if present), plugin, or cluster-state. */
        private RoutingClient.Source source = RoutingClient.Source.AUTO;

        /** Creates the properties with the core's defaults. */
        public RoutingProperties() {}

        /**
         * The source.
         *
         * @return where routing parameters are read from
         */
        public RoutingClient.Source getSource() {
            return source;
        }

        /**
         * The source.
         *
         * @param source where routing parameters are read from
         */
        public void setSource(RoutingClient.Source source) {
            this.source = source;
        }
    }

    /** {@code esrel.join.*}: the caps {@link JoinDefaults} sets on every join built with it. */
    public static class JoinProperties {

        /** The fan-out cap: the most parents one call reads. */
        private int maxParents = 10_000;

        /** Parents read per search. */
        private int pageSize = 10_000;

        /** The most children a children-first plan reads per call. */
        private int maxProbedChildren = 5_000;

        /** How long a point in time stays open between two pages. */
        private Duration pitKeepAlive = Duration.ofMinutes(1);

        /** Creates the properties with the core's defaults. */
        public JoinProperties() {}

        /**
         * The fan-out cap.
         *
         * @return the most parents one call reads
         */
        public int getMaxParents() {
            return maxParents;
        }

        /**
         * The fan-out cap.
         *
         * @param maxParents the most parents one call reads
         */
        public void setMaxParents(int maxParents) {
            this.maxParents = maxParents;
        }

        /**
         * The page size.
         *
         * @return parents read per search
         */
        public int getPageSize() {
            return pageSize;
        }

        /**
         * The page size.
         *
         * @param pageSize parents read per search
         */
        public void setPageSize(int pageSize) {
            this.pageSize = pageSize;
        }

        /**
         * The children-first cap.
         *
         * @return the most children a children-first plan reads per call
         */
        public int getMaxProbedChildren() {
            return maxProbedChildren;
        }

        /**
         * The children-first cap.
         *
         * @param maxProbedChildren the most children a children-first plan reads per call
         */
        public void setMaxProbedChildren(int maxProbedChildren) {
            this.maxProbedChildren = maxProbedChildren;
        }

        /**
         * The point-in-time keep-alive.
         *
         * @return how long a point in time stays open between two pages
         */
        public Duration getPitKeepAlive() {
            return pitKeepAlive;
        }

        /**
         * The point-in-time keep-alive.
         *
         * @param pitKeepAlive how long a point in time stays open between two pages
         */
        public void setPitKeepAlive(Duration pitKeepAlive) {
            this.pitKeepAlive = pitKeepAlive;
        }
    }

    /** {@code esrel.propagation.*}: what {@link PropagationDefaults} sets on every propagator built with it. */
    public static class PropagationProperties {

        /**
         * Bulk requests in flight per propagation job, 1 to 16; unset: chosen from the cluster's write thread pools
         * when a job starts.
         */
        private @Nullable Integer bulksInFlight;

        /** At most this many children rewritten per second; 0 for no limit. */
        private double maxDocsPerSecond;

        /** Children per page and per bulk request. */
        private int batchSize = 1000;

        /** Creates the properties with the core's defaults. */
        public PropagationProperties() {}

        /**
         * Bulks in flight.
         *
         * @return bulk requests in flight per job, or {@code null} for the cluster's choice
         */
        public @Nullable Integer getBulksInFlight() {
            return bulksInFlight;
        }

        /**
         * Bulks in flight.
         *
         * @param bulksInFlight bulk requests in flight per job, 1 to 16, or {@code null} for the cluster's choice
         */
        public void setBulksInFlight(@Nullable Integer bulksInFlight) {
            this.bulksInFlight = bulksInFlight;
        }

        /**
         * The throttle.
         *
         * @return the most children rewritten per second, 0 for no limit
         */
        public double getMaxDocsPerSecond() {
            return maxDocsPerSecond;
        }

        /**
         * The throttle.
         *
         * @param maxDocsPerSecond the most children rewritten per second, 0 for no limit
         */
        public void setMaxDocsPerSecond(double maxDocsPerSecond) {
            this.maxDocsPerSecond = maxDocsPerSecond;
        }

        /**
         * The batch size.
         *
         * @return children per page and per bulk request
         */
        public int getBatchSize() {
            return batchSize;
        }

        /**
         * The batch size.
         *
         * @param batchSize children per page and per bulk request, 1 to 10,000
         */
        public void setBatchSize(int batchSize) {
            this.batchSize = batchSize;
        }
    }

    /** {@code esrel.health.*}: the {@code esrel} health contributor. */
    public static class HealthProperties {

        /** The longest one health check waits for the cluster's answers before it reports DOWN. */
        private Duration timeout = Duration.ofSeconds(10);

        /** Creates the properties with the defaults. */
        public HealthProperties() {}

        /**
         * The check's time bound.
         *
         * @return the longest one check waits for the cluster
         */
        public Duration getTimeout() {
            return timeout;
        }

        /**
         * The check's time bound.
         *
         * @param timeout the longest one check waits for the cluster, positive
         */
        public void setTimeout(Duration timeout) {
            this.timeout = timeout;
        }
    }

    /** {@code esrel.shedlock.*}: ShedLock's {@code LockProvider} on the {@code TreeLocks} bean (with esrel-shedlock). */
    public static class ShedLockProperties extends LockAdapterProperties {

        /** Creates the properties with the defaults: enabled, prefix {@code /shedlock}. */
        public ShedLockProperties() {
            super("/shedlock");
        }
    }
}
