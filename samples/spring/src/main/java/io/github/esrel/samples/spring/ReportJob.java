package io.github.esrel.samples.spring;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import net.javacrumbs.shedlock.core.LockAssert;
import net.javacrumbs.shedlock.spring.annotation.EnableSchedulerLock;
import net.javacrumbs.shedlock.spring.annotation.SchedulerLock;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.annotation.Configuration;
import org.springframework.scheduling.annotation.EnableScheduling;
import org.springframework.scheduling.annotation.Scheduled;

/**
 * A scheduled job as applications write them with ShedLock: every instance schedules it, {@code @SchedulerLock} lets
 * one run at a time and none again within {@code lockAtLeastFor}. The lock provider is the starter's (esrel's tree
 * locks in {@code esrel.locks.namespace}); the application declares none. Only in the sample's two job instances
 * ({@code sample.jobs=true}), not in the context of the other scenarios, whose lock meters it would change.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnProperty(name = "sample.jobs", havingValue = "true")
@EnableScheduling
@EnableSchedulerLock(defaultLockAtMostFor = "PT30S")
public class ReportJob {

    /** Which instance ran the job, in order, across both instances. */
    static final List<String> RUNS = new CopyOnWriteArrayList<>();
    /** When each run started ({@link System#nanoTime()}), in order. */
    static final List<Long> STARTS = new CopyOnWriteArrayList<>();
    /** Instances inside the job right now: never more than one. */
    static final AtomicInteger RUNNING = new AtomicInteger();
    /** The most instances ever seen inside the job at once. */
    static final AtomicInteger MOST_RUNNING = new AtomicInteger();

    private final String instance;

    ReportJob(@Value("${esrel.locks.owner}") String instance) {
        this.instance = instance;
    }

    /** Tried by each instance every 100 ms; runs once in each 2 s window, in one instance. */
    @Scheduled(fixedDelay = 100)
    @SchedulerLock(name = "quarterly/report", lockAtLeastFor = "PT2S")
    public void writeReport() throws InterruptedException {
        LockAssert.assertLocked();
        MOST_RUNNING.accumulateAndGet(RUNNING.incrementAndGet(), Math::max);
        try {
            STARTS.add(System.nanoTime());
            RUNS.add(instance);
            Thread.sleep(50); // the report
        } finally {
            RUNNING.decrementAndGet();
        }
    }
}
