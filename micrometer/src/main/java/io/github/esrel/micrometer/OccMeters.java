package io.github.esrel.micrometer;

import io.github.esrel.occ.OccListener;
import io.github.esrel.occ.Outcome;
import io.micrometer.common.KeyValue;
import io.micrometer.common.KeyValues;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * The meters of {@link io.github.esrel.occ.Occ} (see the module's README for the list) and, with an observation
 * registry, one {@link Observation} per single-document operation, from {@link #onStart} to its outcome or failure
 * on the caller's thread.
 *
 * <p>Hot path: every call records into meters looked up once per (index, operation, outcome) and kept in arrays
 * indexed by the enums' ordinals, so a call costs a map lookup by index and array reads, never a registration.
 */
final class OccMeters implements OccListener {

    static final String CALLS = "esrel.occ.calls";
    static final String ATTEMPTS = "esrel.occ.attempts";
    static final String CONFLICTS = "esrel.occ.conflicts";
    static final String GIVE_UPS = "esrel.occ.giveups";
    static final String COMBINED_WRITES = "esrel.occ.combined.writes";
    static final String OBSERVATION = "esrel.occ";

    /** The outcome tag of an operation that threw. */
    static final String ERROR = "error";

    private static final Outcome.Operation[] OPERATIONS = Outcome.Operation.values();
    private static final Outcome.Status[] STATUSES = Outcome.Status.values();
    private static final String[] STATUS_LABELS = new String[STATUSES.length + 1];
    /** Made once: an observation per call should allocate no more than Micrometer itself does. */
    private static final KeyValue[] OUTCOME_KEYS = new KeyValue[STATUSES.length + 1];

    private static final String[] CONTEXTUAL_NAMES = new String[OPERATIONS.length];

    static {
        for (Outcome.Status s : STATUSES) {
            STATUS_LABELS[s.ordinal()] = s.name().toLowerCase(Locale.ROOT);
        }
        STATUS_LABELS[STATUSES.length] = ERROR;
        for (int i = 0; i < STATUS_LABELS.length; i++) {
            OUTCOME_KEYS[i] = KeyValue.of("outcome", STATUS_LABELS[i]);
        }
        for (Outcome.Operation op : OPERATIONS) {
            CONTEXTUAL_NAMES[op.ordinal()] = "esrel " + op.label();
        }
    }

    private final MeterRegistry registry;
    private final ObservationRegistry observations;
    private final Tags common;
    private final Map<String, IndexMeters> byIndex = new ConcurrentHashMap<>();
    /**
     * The index each call open on this thread was given, innermost first. An outcome names the index the operation
     * found or wrote (an alias resolved to its backing index), the other events the one the caller named: the meters
     * of one call all take the caller's, so that they add up per index and an alias does not multiply the series.
     */
    private final ThreadLocal<ArrayDeque<String>> given = ThreadLocal.withInitial(ArrayDeque::new);

    OccMeters(MeterRegistry registry, ObservationRegistry observations, Iterable<Tag> common) {
        this.registry = registry;
        this.observations = observations;
        this.common = Tags.of(common);
    }

    /** What an observation of one operation carries; its type tells esrel's observations from others. */
    static final class Context extends Observation.Context {}

    @Override
    public void onStart(String index, Outcome.Operation operation) {
        given.get().push(index);
        if (observations.isNoop()) {
            return;
        }
        Observation o = Observation.createNotStarted(OBSERVATION, Context::new, observations)
                .contextualName(CONTEXTUAL_NAMES[operation.ordinal()])
                .lowCardinalityKeyValues(meters(index).startKeys[operation.ordinal()]);
        Scopes.open(o);
    }

    @Override
    public void onOutcome(Outcome<?> outcome) {
        // Bulk items have no start event (a bulk update is not one call), and name the index as given.
        String index = outcome.operation() == Outcome.Operation.BULK
                ? null
                : given.get().poll();
        IndexMeters m = meters(index != null ? index : outcome.index());
        int op = outcome.operation().ordinal();
        int status = outcome.status().ordinal();
        m.calls(op, status).record(outcome.took().toNanos(), TimeUnit.NANOSECONDS);
        m.attempts(op).record(outcome.attempts());
        if (outcome.status() == Outcome.Status.CONFLICT) {
            m.giveUps(op).increment();
        }
        if (!observations.isNoop() && outcome.operation() != Outcome.Operation.BULK) {
            Observation o = Scopes.close(observations, Context.class);
            if (o != null) {
                o.lowCardinalityKeyValue(OUTCOME_KEYS[status]).stop();
            }
        }
    }

    @Override
    public void onFailure(String index, Outcome.Operation operation, RuntimeException failure, Duration took) {
        given.get().poll();
        meters(index).calls(operation.ordinal(), STATUSES.length).record(took.toNanos(), TimeUnit.NANOSECONDS);
        if (!observations.isNoop()) {
            Observation o = Scopes.close(observations, Context.class);
            if (o != null) {
                o.lowCardinalityKeyValue(OUTCOME_KEYS[STATUSES.length])
                        .error(failure)
                        .stop();
            }
        }
    }

    @Override
    public void onConflict(String index, String id, int attempt) {
        meters(index).conflicts.increment();
    }

    @Override
    public void onCombinedWrite(String index, int calls) {
        meters(index).combined.record(calls);
    }

    private IndexMeters meters(String index) {
        IndexMeters m = byIndex.get(index);
        return m != null ? m : byIndex.computeIfAbsent(index, IndexMeters::new);
    }

    /**
     * The meters of one index. The per-operation ones are registered on first use; two threads may both register
     * one, which is harmless: the registry hands both the same meter.
     */
    private final class IndexMeters {
        final String index;
        final Counter conflicts;
        final DistributionSummary combined;
        final AtomicReferenceArray<Timer> calls = new AtomicReferenceArray<>(OPERATIONS.length * STATUS_LABELS.length);
        final AtomicReferenceArray<DistributionSummary> attempts = new AtomicReferenceArray<>(OPERATIONS.length);
        final AtomicReferenceArray<Counter> giveUps = new AtomicReferenceArray<>(OPERATIONS.length);
        /** The key values an observation of each operation on this index starts with. */
        final KeyValues[] startKeys = new KeyValues[OPERATIONS.length];

        IndexMeters(String index) {
            this.index = index;
            for (Outcome.Operation op : OPERATIONS) {
                startKeys[op.ordinal()] = KeyValues.of("index", index, "operation", op.label());
            }
            this.conflicts = Counter.builder(CONFLICTS)
                    .description("Version conflicts (409) met by optimistic writes, each retried or ending its call")
                    .tags(common)
                    .tag("index", index)
                    .register(registry);
            this.combined = DistributionSummary.builder(COMBINED_WRITES)
                    .description("Conditional writes that carried several callers' calls on one document, and how many")
                    .baseUnit("calls")
                    .tags(common)
                    .tag("index", index)
                    .register(registry);
        }

        Timer calls(int op, int status) {
            int i = op * STATUS_LABELS.length + status;
            Timer t = calls.get(i);
            if (t == null) {
                t = Timer.builder(CALLS)
                        .description("Optimistic operations, by how they ended, with the time each took")
                        .tags(common)
                        .tags("index", index, "operation", OPERATIONS[op].label(), "outcome", STATUS_LABELS[status])
                        .register(registry);
                calls.set(i, t);
            }
            return t;
        }

        DistributionSummary attempts(int op) {
            DistributionSummary s = attempts.get(op);
            if (s == null) {
                s = DistributionSummary.builder(ATTEMPTS)
                        .description("Attempts (reads and conditional writes) per optimistic operation")
                        .baseUnit("attempts")
                        .tags(common)
                        .tags("index", index, "operation", OPERATIONS[op].label())
                        .register(registry);
                attempts.set(op, s);
            }
            return s;
        }

        Counter giveUps(int op) {
            Counter c = giveUps.get(op);
            if (c == null) {
                c = Counter.builder(GIVE_UPS)
                        .description("Optimistic operations that gave up on conflicts when their retry policy ran out")
                        .tags(common)
                        .tags("index", index, "operation", OPERATIONS[op].label())
                        .register(registry);
                giveUps.set(op, c);
            }
            return c;
        }
    }
}
