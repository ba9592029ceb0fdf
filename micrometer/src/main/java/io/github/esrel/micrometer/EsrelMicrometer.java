package io.github.esrel.micrometer;

import io.github.esrel.denorm.PropagationListener;
import io.github.esrel.lock.TreeLockListener;
import io.github.esrel.occ.OccListener;
import io.github.esrel.view.ViewListener;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.observation.ObservationRegistry;
import java.time.Clock;
import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * esrel's meters and observations in one place: one instance per {@link MeterRegistry}, whose listeners go to the
 * builders of esrel's entry points ({@code Occ.Builder.listener}, {@code TreeLocks.Builder.listener},
 * {@code Propagator.Builder.listener}, {@code MaterializedView.Builder.listener}).
 *
 * <pre>{@code
 * EsrelMicrometer meters = EsrelMicrometer.of(registry);
 * Occ occ = Occ.of(b -> b.client(es).listener(meters.occListener()));
 * }</pre>
 *
 * <p>Tags are low-cardinality only: the index, the operation, the outcome; never a document id or a path. The meters
 * and their tags are listed in the module's README. Each listener method returns the same listener every time (one per
 * instance), so that its meters are registered once; share the listeners between the entry points of one
 * application. With an {@link ObservationRegistry} ({@link Builder#observations}), one {@code Observation} covers each
 * esrel call that spans several requests (an OCC operation with its retries, a lock acquisition with its wait, a
 * propagation page), never a single request: the client has its own spans for those.
 *
 * <p>Thread-safe.
 */
public final class EsrelMicrometer {

    private final MeterRegistry registry;
    private final ObservationRegistry observations;
    private final List<Tag> tags;
    // One listener of each kind per instance, made on first use, so that its meters (and gauges) exist once.
    private @Nullable OccMeters occ;
    private @Nullable LockMeters locks;
    private @Nullable PropagationMeters propagation;
    private @Nullable ViewMeters views;

    private EsrelMicrometer(Builder b) {
        this.registry = Objects.requireNonNull(b.registry, "registry");
        this.observations = b.observations;
        this.tags = List.copyOf(b.tags);
    }

    /**
     * Meters in {@code registry}, no observations.
     *
     * @param registry where the meters go
     * @return the instrumentation
     */
    public static EsrelMicrometer of(MeterRegistry registry) {
        return builder().registry(registry).build();
    }

    /**
     * A builder: the registry is required, observations and common tags are optional.
     *
     * @return a new builder
     */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * For {@code Occ.Builder.listener}.
     *
     * @return the OCC listener recording into this registry
     */
    public synchronized OccListener occListener() {
        if (occ == null) {
            occ = new OccMeters(registry, observations, tags);
        }
        return occ;
    }

    /**
     * For {@code TreeLocks.Builder.listener}.
     *
     * @return the tree-lock listener recording into this registry
     */
    public synchronized TreeLockListener lockListener() {
        if (locks == null) {
            locks = new LockMeters(registry, observations, tags);
        }
        return locks;
    }

    /**
     * For {@code Propagator.Builder.listener}.
     *
     * @return the propagation listener recording into this registry
     */
    public synchronized PropagationListener propagationListener() {
        if (propagation == null) {
            propagation = new PropagationMeters(registry, observations, tags, Clock.systemUTC());
        }
        return propagation;
    }

    /**
     * For {@code MaterializedView.Builder.listener}.
     *
     * @return the view listener recording into this registry
     */
    public synchronized ViewListener viewListener() {
        if (views == null) {
            views = new ViewMeters(registry, tags);
        }
        return views;
    }

    /** Options of {@link EsrelMicrometer}. */
    public static final class Builder {
        private @Nullable MeterRegistry registry;
        private ObservationRegistry observations = ObservationRegistry.NOOP;
        private List<Tag> tags = List.of();

        private Builder() {}

        /**
         * Where the meters go. Required.
         *
         * @param registry the registry
         * @return this builder
         */
        public Builder registry(MeterRegistry registry) {
            this.registry = Objects.requireNonNull(registry, "registry");
            return this;
        }

        /**
         * Where observations of calls that span several requests go; none by default.
         *
         * @param observations the observation registry
         * @return this builder
         */
        public Builder observations(ObservationRegistry observations) {
            this.observations = Objects.requireNonNull(observations, "observations");
            return this;
        }

        /**
         * Tags added to every meter (an application name, say).
         *
         * @param tags the common tags
         * @return this builder
         */
        public Builder tags(Iterable<Tag> tags) {
            java.util.ArrayList<Tag> copy = new java.util.ArrayList<>();
            tags.forEach(copy::add);
            this.tags = copy;
            return this;
        }

        /**
         * The instrumentation.
         *
         * @return a new instance
         */
        public EsrelMicrometer build() {
            return new EsrelMicrometer(this);
        }
    }
}
