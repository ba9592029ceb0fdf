package io.github.esrel.micrometer;

import io.github.esrel.view.Intent;
import io.github.esrel.view.RebuildResult;
import io.github.esrel.view.ViewListener;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Tags;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/** The meters of {@link io.github.esrel.view.MaterializedView}s (see the module's README). */
final class ViewMeters implements ViewListener {

    static final String REBUILDS = "esrel.view.rebuilds";
    static final String STALE = "esrel.view.stale";
    static final String INTENTS = "esrel.view.intents";
    static final String PENDING = "esrel.view.intents.pending";

    private final Counter written;
    private final Counter deleted;
    private final Counter failed;
    private final Counter stale;
    private final Counter recorded;
    private final Counter cleared;
    private final Counter replayed;
    /** Intents this process recorded and has not cleared yet. */
    private final Set<String> pending = ConcurrentHashMap.newKeySet();

    ViewMeters(MeterRegistry registry, Iterable<Tag> commonTags) {
        Tags common = Tags.of(commonTags);
        String rebuilds = "Views rebuilt from their sources, by outcome (written, deleted with their source, failed)";
        this.written = counter(registry, common, REBUILDS, "written", rebuilds);
        this.deleted = counter(registry, common, REBUILDS, "deleted", rebuilds);
        this.failed = counter(registry, common, REBUILDS, "failed", rebuilds);
        this.stale = Counter.builder(STALE)
                .description("View writes refused as stale: a rebuild from a later snapshot had won (expected)")
                .tags(common)
                .register(registry);
        String intents = "Intents recorded before source writes, cleared after their rebuild, replayed by repair";
        this.recorded = counter(registry, common, INTENTS, "recorded", intents);
        this.cleared = counter(registry, common, INTENTS, "cleared", intents);
        this.replayed = counter(registry, common, INTENTS, "replayed", intents);
        Gauge.builder(PENDING, pending, Set::size)
                .description("Intents this process recorded and has not cleared: rebuilds owed, replayed by repair")
                .tags(common)
                .register(registry);
    }

    private static Counter counter(MeterRegistry registry, Tags common, String name, String tag, String description) {
        return Counter.builder(name)
                .description(description)
                .tags(common)
                .tag(name.equals(INTENTS) ? "event" : "outcome", tag)
                .register(registry);
    }

    @Override
    public void afterBatch(RebuildResult batch) {
        add(written, batch.written());
        add(deleted, batch.deleted());
        add(failed, batch.failed());
    }

    private static void add(Counter c, long n) {
        if (n > 0) {
            c.increment(n);
        }
    }

    @Override
    public void onStale(String viewId, long version) {
        stale.increment();
    }

    @Override
    public void onIntentRecorded(Intent intent) {
        recorded.increment();
        pending.add(intent.id());
    }

    @Override
    public void onIntentCleared(Intent intent) {
        cleared.increment();
        pending.remove(intent.id());
    }

    @Override
    public void onIntentReplayed(Intent intent) {
        replayed.increment();
    }
}
