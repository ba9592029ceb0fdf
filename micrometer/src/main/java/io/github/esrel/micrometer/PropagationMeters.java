package io.github.esrel.micrometer;

import io.github.esrel.denorm.ChildFailure;
import io.github.esrel.denorm.JobCounts;
import io.github.esrel.denorm.JobState;
import io.github.esrel.denorm.Progress;
import io.github.esrel.denorm.PropagationListener;
import io.github.esrel.denorm.PropagationResult;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.TimeGauge;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import java.time.Clock;
import java.time.Instant;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * The meters of {@link io.github.esrel.denorm.Propagator} jobs (see the module's README) and, with an observation
 * registry, one {@link Observation} per page of children, from its hand-over to the writer to the end of its writes
 * (pages overlap with several bulks in flight, so these observations are not scoped to a thread).
 *
 * <p>The document counters follow each job's {@link Progress}: each report adds what changed since the job's last
 * one. A resumed job's counts start from its checkpoint, so its first report also adds what it had done before.
 */
final class PropagationMeters implements PropagationListener {

    static final String DOCUMENTS = "esrel.propagation.documents";
    static final String JOBS = "esrel.propagation.jobs";
    static final String CHECKPOINT_AGE = "esrel.propagation.checkpoint.age";
    static final String OBSERVATION = "esrel.propagation.page";

    private final ObservationRegistry observations;
    private final Clock clock;
    private final Counter done;
    private final Counter written;
    private final Counter conflicting;
    private final Counter failed;
    private final Map<JobState, Counter> jobs = new ConcurrentHashMap<>();
    private final MeterRegistry registry;
    private final Tags common;
    /** The counts last reported per running job. */
    private final Map<String, JobCounts> last = new ConcurrentHashMap<>();
    /** The last checkpoint of each running job. */
    private final Map<String, Instant> checkpoints = new ConcurrentHashMap<>();
    /** Pages whose writes are in flight, by job and page number. */
    private final Map<String, Observation> pages = new ConcurrentHashMap<>();

    PropagationMeters(MeterRegistry registry, ObservationRegistry observations, Iterable<Tag> common, Clock clock) {
        this.registry = registry;
        this.observations = observations;
        this.common = Tags.of(common);
        this.clock = clock;
        this.done = documents("done");
        this.written = documents("written");
        this.conflicting = documents("conflicting");
        this.failed = documents("failed");
        TimeGauge.builder(CHECKPOINT_AGE, this, TimeUnit.SECONDS, PropagationMeters::checkpointAgeSeconds)
                .description("Age of the oldest latest checkpoint among the running jobs: how stale a resume would"
                        + " be; 0 when no job runs")
                .tags(this.common)
                .register(registry);
    }

    private Counter documents(String outcome) {
        return Counter.builder(DOCUMENTS)
                .description("Children of propagation jobs: handled (done), written, met a conflict, or failed")
                .tags(common)
                .tag("outcome", outcome)
                .register(registry);
    }

    /** What an observation of one page carries. */
    static final class Context extends Observation.Context {}

    @Override
    public void onStart(String jobId, String parentId) {
        last.putIfAbsent(jobId, JobCounts.NONE);
    }

    @Override
    public void onProgress(Progress progress) {
        JobCounts now = progress.counts();
        JobCounts before = last.put(progress.jobId(), now);
        if (before == null) {
            before = JobCounts.NONE;
        }
        add(done, now.done() - before.done());
        add(written, now.written() - before.written());
        add(conflicting, now.conflicts() - before.conflicts());
        add(failed, now.failed() - before.failed());
    }

    private static void add(Counter counter, long delta) {
        if (delta > 0) {
            counter.increment(delta);
        }
    }

    @Override
    public void onFailure(String jobId, ChildFailure failure) {
        // Counted from the progress reports, which include every failed child.
    }

    @Override
    public void onFinish(PropagationResult result) {
        ended(result.jobId(), result.state());
    }

    @Override
    public void onJobFailure(String jobId, Throwable failure) {
        ended(jobId, JobState.FAILED);
    }

    private void ended(String jobId, JobState state) {
        last.remove(jobId);
        checkpoints.remove(jobId);
        jobs.computeIfAbsent(
                        state,
                        s -> Counter.builder(JOBS)
                                .description("Propagation jobs that ended, by state")
                                .tags(common)
                                .tag("state", s.name().toLowerCase(Locale.ROOT))
                                .register(registry))
                .increment();
    }

    @Override
    public void onCheckpoint(String jobId, JobState state, Instant at) {
        if (state == JobState.RUNNING) {
            checkpoints.put(jobId, at);
        } else {
            checkpoints.remove(jobId);
        }
    }

    @Override
    public void onPageStart(String jobId, int pass, long page, int documents) {
        if (observations.isNoop()) {
            return;
        }
        Observation o = Observation.createNotStarted(OBSERVATION, Context::new, observations)
                .contextualName("esrel propagation page")
                .lowCardinalityKeyValue("pass", pass == 1 ? "main" : "catch_up")
                .start();
        pages.put(jobId + '#' + page, o);
    }

    @Override
    public void onPageEnd(String jobId, long page, @Nullable Throwable failure) {
        if (observations.isNoop()) {
            return;
        }
        Observation o = pages.remove(jobId + '#' + page);
        if (o != null) {
            if (failure != null) {
                o.error(failure);
            }
            o.stop();
        }
    }

    private double checkpointAgeSeconds() {
        Instant now = clock.instant();
        double oldest = 0;
        for (Instant at : checkpoints.values()) {
            oldest = Math.max(oldest, (now.toEpochMilli() - at.toEpochMilli()) / 1000.0);
        }
        return oldest;
    }
}
