package io.github.esrel.micrometer;

import io.github.esrel.lock.LockConflict;
import io.github.esrel.lock.LockMode;
import io.github.esrel.lock.LockRequest;
import io.github.esrel.lock.TreeLock;
import io.github.esrel.lock.TreeLockException;
import io.github.esrel.lock.TreeLockListener;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicReferenceArray;
import org.jspecify.annotations.Nullable;

/**
 * The meters of {@link io.github.esrel.lock.TreeLocks} (see the module's README) and, with an observation registry,
 * one {@link Observation} per acquisition, its wait included, from its start to its grant, busy result or failure on
 * the caller's thread.
 *
 * <p>Meters are registered once per (index, mode, outcome) and kept in arrays by the enums' ordinals.
 */
final class LockMeters implements TreeLockListener {

    static final String ACQUIRE = "esrel.lock.acquire";
    static final String RENEWALS = "esrel.lock.renewals";
    static final String LOST = "esrel.lock.lost";
    static final String RELEASES = "esrel.lock.releases";
    // Not the timer's name: with a meter handler, an observation makes a timer of its own name and keys, and a registry
    // like Prometheus refuses two meters of one name with different tag keys.
    static final String OBSERVATION = "esrel.lock.acquisition";

    /** The outcomes of an acquisition, in the order of the timers' array. */
    static final String[] OUTCOMES = {"granted", "busy", "denied", "error"};

    private static final int GRANTED = 0;
    private static final int BUSY = 1;
    private static final int DENIED = 2;
    private static final int ERROR = 3;
    private static final LockMode[] MODES = LockMode.values();

    private final MeterRegistry registry;
    private final ObservationRegistry observations;
    private final Tags common;
    private final Map<String, IndexMeters> byIndex = new ConcurrentHashMap<>();

    LockMeters(MeterRegistry registry, ObservationRegistry observations, Iterable<Tag> common) {
        this.registry = registry;
        this.observations = observations;
        this.common = Tags.of(common);
    }

    /** What an observation of one acquisition carries; its type tells esrel's observations from others. */
    static final class Context extends Observation.Context {}

    @Override
    public void onAcquireStarted(String index, LockRequest request) {
        if (observations.isNoop()) {
            return;
        }
        Scopes.open(Observation.createNotStarted(OBSERVATION, Context::new, observations)
                .contextualName("esrel lock " + request.mode().jsonName())
                .lowCardinalityKeyValue("index", index)
                .lowCardinalityKeyValue("mode", request.mode().jsonName()));
    }

    @Override
    public void onGranted(TreeLock lock, Duration waited) {
        ended(lock.index(), lock.mode(), GRANTED, waited, null);
    }

    @Override
    public void onBusy(String index, LockRequest request, List<LockConflict> conflicts, Duration waited) {
        ended(index, request.mode(), BUSY, waited, null);
    }

    @Override
    public void onAcquireFailed(String index, LockRequest request, RuntimeException failure, Duration waited) {
        ended(index, request.mode(), failure instanceof TreeLockException ? DENIED : ERROR, waited, failure);
    }

    private void ended(String index, LockMode mode, int outcome, Duration waited, @Nullable RuntimeException failure) {
        meters(index).acquire(mode, outcome).record(waited);
        if (observations.isNoop()) {
            return;
        }
        Observation o = Scopes.close(observations, Context.class);
        if (o != null) {
            o.lowCardinalityKeyValue("outcome", OUTCOMES[outcome]);
            if (failure != null) {
                o.error(failure);
            }
            o.stop();
        }
    }

    @Override
    public void onRenewed(TreeLock lock) {
        meters(lock.index()).renewed.increment();
    }

    @Override
    public void onRenewalFailed(TreeLock lock, TreeLockException failure) {
        meters(lock.index()).renewalFailed.increment();
    }

    @Override
    public void onLost(TreeLock lock, String reason) {
        meters(lock.index()).lost.increment();
    }

    @Override
    public void onReleased(TreeLock lock, boolean held) {
        IndexMeters m = meters(lock.index());
        (held ? m.releasedHeld : m.releasedLost).increment();
    }

    private IndexMeters meters(String index) {
        IndexMeters m = byIndex.get(index);
        return m != null ? m : byIndex.computeIfAbsent(index, IndexMeters::new);
    }

    /** The meters of one namespace; timers are registered on first use (a race registers the same meter). */
    private final class IndexMeters {
        final String index;
        final AtomicReferenceArray<Timer> acquire = new AtomicReferenceArray<>(MODES.length * OUTCOMES.length);
        final Counter renewed;
        final Counter renewalFailed;
        final Counter lost;
        final Counter releasedHeld;
        final Counter releasedLost;

        IndexMeters(String index) {
            this.index = index;
            this.renewed = counter(RENEWALS, "ok", "Lease renewals of held locks, by outcome");
            this.renewalFailed = counter(RENEWALS, "failed", "Lease renewals of held locks, by outcome");
            this.lost = Counter.builder(LOST)
                    .description("Leases lost: expired before a renewal succeeded, or no longer held by the server")
                    .tags(common)
                    .tag("index", index)
                    .register(registry);
            this.releasedHeld = counter(RELEASES, "held", "Locks released, by whether the lease was held up to then");
            this.releasedLost = counter(RELEASES, "lost", "Locks released, by whether the lease was held up to then");
        }

        private Counter counter(String name, String outcome, String description) {
            return Counter.builder(name)
                    .description(description)
                    .tags(common)
                    .tags("index", index, "outcome", outcome)
                    .register(registry);
        }

        Timer acquire(LockMode mode, int outcome) {
            int i = mode.ordinal() * OUTCOMES.length + outcome;
            Timer t = acquire.get(i);
            if (t == null) {
                t = Timer.builder(ACQUIRE)
                        .description("Lock acquisitions by outcome, with the time from the request to the grant or"
                                + " refusal, every wait between attempts included")
                        .tags(common)
                        .tags("index", index, "mode", mode.jsonName(), "outcome", OUTCOMES[outcome])
                        .register(registry);
                acquire.set(i, t); // a race registers the same timer twice: the registry returns it again
            }
            return t;
        }
    }
}
