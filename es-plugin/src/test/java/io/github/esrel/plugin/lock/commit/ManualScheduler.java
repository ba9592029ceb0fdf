package io.github.esrel.plugin.lock.commit;

import java.util.ArrayDeque;
import java.util.Comparator;
import java.util.PriorityQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import org.elasticsearch.common.util.concurrent.ThreadContext;

/**
 * A {@link TaskScheduler} on virtual time, run by the test's own thread: tasks handed over wait until the test
 * runs them, and time moves only when the test moves it, running the timers that fall due in order. The wall
 * clock ({@link #clock()}) moves with it, so leases end when the virtual time passes them. Like the node's
 * executors, it runs every task in the thread context it was handed over in.
 */
public final class ManualScheduler implements TaskScheduler {

    /** The wall clock when the test starts: 2025-11-30T12:00:00Z. */
    public static final long EPOCH_MILLIS = 1_764_504_000_000L;

    private final ThreadContext threadContext;
    private final ArrayDeque<Runnable> ready = new ArrayDeque<>();
    private final PriorityQueue<Timer> timers =
            new PriorityQueue<>(Comparator.comparingLong((Timer t) -> t.atNanos).thenComparingLong(t -> t.seq));
    private long nanos;
    private long clockShiftMillis;
    private long seq;

    public ManualScheduler(ThreadContext threadContext) {
        this.threadContext = threadContext;
    }

    private static final class Timer implements Cancellable {
        final long atNanos;
        final long seq;
        final Runnable task;
        boolean cancelled;

        Timer(long atNanos, long seq, Runnable task) {
            this.atNanos = atNanos;
            this.seq = seq;
            this.task = task;
        }

        @Override
        public void cancel() {
            cancelled = true;
        }
    }

    @Override
    public long nanoTime() {
        return nanos;
    }

    @Override
    public void execute(Runnable task) {
        ready.add(threadContext.preserveContext(task));
    }

    @Override
    public Cancellable schedule(Runnable task, long delayMillis) {
        Timer timer = new Timer(
                nanos + TimeUnit.MILLISECONDS.toNanos(delayMillis), seq++, threadContext.preserveContext(task));
        timers.add(timer);
        return timer;
    }

    /** Epoch milliseconds: {@link #EPOCH_MILLIS} plus the virtual time passed, plus any {@link #shiftClock} shift. */
    public LongSupplier clock() {
        return () -> EPOCH_MILLIS + TimeUnit.NANOSECONDS.toMillis(nanos) + clockShiftMillis;
    }

    /** Moves the wall clock alone (forwards or back), as a node's clock can jump; no timer runs. */
    public void shiftClock(long millis) {
        clockShiftMillis += millis;
    }

    /** The virtual time passed since the start. */
    public long elapsedMillis() {
        return TimeUnit.NANOSECONDS.toMillis(nanos);
    }

    /** Runs the tasks handed over, and those they hand over, until none is left; time stands still. */
    public void runReady() {
        for (int steps = 0; ready.isEmpty() == false; steps++) {
            if (steps > 1_000_000) {
                throw new AssertionError("tasks keep handing over tasks: a loop without a timer");
            }
            ready.poll().run();
        }
    }

    /** Moves time forward by {@code millis}, running each timer that falls due at its time, and the tasks it hands over. */
    public void advance(long millis) {
        long end = nanos + TimeUnit.MILLISECONDS.toNanos(millis);
        runTimersUntil(end);
        nanos = end;
    }

    /** Runs everything, jumping to each timer, until no task and no live timer is left or {@code maxMillis} have passed. */
    public void runUntilIdle(long maxMillis) {
        runTimersUntil(nanos + TimeUnit.MILLISECONDS.toNanos(maxMillis));
    }

    private void runTimersUntil(long endNanos) {
        runReady();
        while (timers.isEmpty() == false && timers.peek().atNanos <= endNanos) {
            Timer timer = timers.poll();
            nanos = Math.max(nanos, timer.atNanos);
            if (timer.cancelled == false) {
                timer.task.run();
            }
            runReady();
        }
    }

    /** Whether a timer that was not cancelled is still waiting to run. */
    public boolean hasLiveTimers() {
        return timers.stream().anyMatch(t -> t.cancelled == false);
    }
}
