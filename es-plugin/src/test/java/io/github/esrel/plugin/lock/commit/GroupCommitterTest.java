package io.github.esrel.plugin.lock.commit;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.esrel.plugin.lock.commit.GroupCommitter.Decision;
import io.github.esrel.plugin.lock.commit.GroupCommitter.Mutation;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.elasticsearch.common.settings.Settings;
import org.elasticsearch.common.util.concurrent.ThreadContext;
import org.elasticsearch.core.Nullable;
import org.junit.jupiter.api.Test;

/**
 * The group commit engine on an in-memory store, with the state a list of the names of the mutations applied:
 * what a list holds and in which order shows what was batched, redone, lost or duplicated.
 */
class GroupCommitterTest {

    private static final String KEY = "k";
    private static final long DEADLINE_MILLIS = 30_000;

    private final ManualScheduler scheduler = new ManualScheduler(new ThreadContext(Settings.EMPTY));
    private final InMemoryStore<List<String>> store = new InMemoryStore<>(List.of(), scheduler::execute);
    private final List<String> commits = new ArrayList<>();
    private final GroupCommitter<List<String>> committer = new GroupCommitter<>(
            store, scheduler, (key, before, after) -> commits.add(key + ": " + before + " -> " + after));

    /**
     * Appends its name, once: finding its name in the state it changes nothing, as a lock request recognises
     * its own grant after a write whose outcome was unknown. Records everything that happens to it.
     */
    private static class Append implements Mutation<List<String>> {
        final String name;
        final AtomicInteger applied = new AtomicInteger();
        final AtomicInteger answers = new AtomicInteger();
        final AtomicInteger outcomeUnknown = new AtomicInteger();
        final AtomicReference<List<String>> seen = new AtomicReference<>();
        final AtomicReference<Exception> failure = new AtomicReference<>();
        volatile boolean completed;
        volatile Exception cancelled;

        Append(String name) {
            this.name = name;
        }

        @Override
        public Decision<List<String>> apply(List<String> state) {
            applied.incrementAndGet();
            seen.set(state);
            if (state.contains(name)) {
                return new Decision<>(state, this::complete);
            }
            List<String> next = new ArrayList<>(state);
            next.add(name);
            return new Decision<>(Collections.unmodifiableList(next), this::complete);
        }

        void complete() {
            completed = true;
            answers.incrementAndGet();
        }

        @Override
        public void fail(Exception e) {
            failure.set(e);
            answers.incrementAndGet();
        }

        @Override
        public void writeOutcomeUnknown() {
            outcomeUnknown.incrementAndGet();
        }

        @Override
        @Nullable
        public Exception cancellation() {
            return cancelled;
        }
    }

    /** Reads and changes nothing: reports what it saw. */
    private static class Look extends Append {
        Look(String name) {
            super(name);
        }

        @Override
        public Decision<List<String>> apply(List<String> state) {
            applied.incrementAndGet();
            seen.set(state);
            return new Decision<>(state, this::complete);
        }
    }

    private List<Append> submitAll(String prefix, int count) {
        List<Append> mutations = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            Append m = new Append(prefix + i);
            mutations.add(m);
            submit(m);
        }
        return mutations;
    }

    private void submit(Mutation<List<String>> mutation) {
        committer.submit(KEY, mutation, scheduler.nanoTime() + TimeUnit.MILLISECONDS.toNanos(DEADLINE_MILLIS));
    }

    private static List<String> names(List<? extends Append> mutations) {
        return mutations.stream().map(m -> m.name).toList();
    }

    private static void assertAnsweredOnce(List<? extends Append> mutations) {
        for (Append m : mutations) {
            assertThat(m.answers).as(m.name).hasValue(1);
        }
    }

    @Test
    void shouldCommitMutationsQueuedTogetherInOneWrite() {
        List<Append> mutations = submitAll("m", 10);
        scheduler.runReady();

        assertThat(store.reads()).isEqualTo(1);
        assertThat(store.writes(KEY)).isEqualTo(1);
        assertThat(store.state(KEY)).containsExactlyElementsOf(names(mutations));
        assertAnsweredOnce(mutations);
        assertThat(mutations).allMatch(m -> m.completed);
        // Each mutation decided on the state the ones before it left.
        assertThat(mutations.get(3).seen.get()).containsExactly("m0", "m1", "m2");
    }

    @Test
    void shouldBatchMutationsArrivingDuringARoundIntoTheNextWrite() {
        store.holdReads();
        Append first = new Append("first");
        submit(first);
        scheduler.runReady(); // the round of "first" waits for its read
        List<Append> later = submitAll("later", 9);
        scheduler.runReady();
        assertThat(store.reads()).as("no second round while one runs").isEqualTo(1);

        store.releaseReads();
        scheduler.runReady();

        assertThat(store.history(KEY)).hasSize(2);
        assertThat(store.history(KEY).get(0)).containsExactly("first");
        assertThat(store.state(KEY)).hasSize(10).startsWith("first").endsWith("later8");
        assertAnsweredOnce(later);
        assertThat(first.answers).hasValue(1);
    }

    @Test
    void shouldNotWriteWhenNoMutationChangesTheState() {
        Look look = new Look("look");
        submit(look);
        scheduler.runReady();

        assertThat(store.writeAttempts()).isZero();
        assertThat(look.completed).isTrue();
        assertThat(commits).isEmpty();
    }

    @Test
    void shouldAnswerNoMutationBeforeItsWriteSucceeded() {
        store.failNextWrite(new IllegalStateException("disk full"), false);
        Append changer = new Append("changer");
        Look look = new Look("look");
        submit(changer);
        submit(look);
        scheduler.runReady();

        // The look saw the change of the mutation before it, which was never stored: it must not report it.
        assertThat(look.completed).isFalse();
        assertThat(look.failure.get()).hasMessage("disk full");
        assertThat(changer.failure.get()).hasMessage("disk full");
        assertThat(store.state(KEY)).isEmpty();
    }

    @Test
    void shouldRereadAndApplyEveryMutationAgainAfterAConflict() {
        store.interfereBeforeNextWrite(state -> List.of("foreign"));
        List<Append> mutations = submitAll("m", 3);
        Look look = new Look("look");
        submit(look);
        scheduler.runReady();

        assertThat(store.reads()).isEqualTo(2);
        assertThat(store.state(KEY)).containsExactly("foreign", "m0", "m1", "m2");
        assertThat(mutations).allMatch(m -> m.applied.get() == 2 && m.completed);
        assertAnsweredOnce(mutations);
        assertThat(look.applied).hasValue(2);
        assertThat(look.seen.get()).containsExactly("foreign", "m0", "m1", "m2");
        assertThat(scheduler.elapsedMillis())
                .as("the first conflicts are retried at once")
                .isZero();
    }

    @Test
    void shouldTellOnlyTheMutationsThatChangedTheStateThatAFailedWriteMayHaveApplied() {
        store.failNextWrite(new InMemoryStore.Unavailable("ack lost"), true);
        Append changer = new Append("changer");
        Look look = new Look("look");
        submit(changer);
        submit(look);
        scheduler.runUntilIdle(10_000);

        assertThat(changer.outcomeUnknown).hasValue(1);
        assertThat(look.outcomeUnknown).hasValue(0);
        // The retry found the change already stored: nothing duplicated, nothing written twice.
        assertThat(store.state(KEY)).containsExactly("changer");
        assertThat(store.writes(KEY)).isEqualTo(1);
        assertThat(changer.completed).isTrue();
        assertThat(look.completed).isTrue();
    }

    @Test
    void shouldFailEveryWaiterOfTheBatchWhenTheWriteFailsPermanently() {
        store.failNextWrite(new IllegalStateException("mapping refused"), false);
        List<Append> mutations = submitAll("m", 5);
        scheduler.runReady();

        assertAnsweredOnce(mutations);
        assertThat(mutations)
                .allMatch(m ->
                        m.failure.get() != null && m.failure.get().getMessage().equals("mapping refused"));
        assertThat(store.writeAttempts()).isEqualTo(1);

        Append after = new Append("after");
        submit(after);
        scheduler.runReady();
        assertThat(after.completed).as("the next round runs").isTrue();
    }

    @Test
    void shouldFailEveryWaiterOfTheBatchWhenTheReadFailsPermanently() {
        store.failNextRead(new IllegalStateException("the stored state is corrupt"));
        List<Append> mutations = submitAll("m", 5);
        scheduler.runReady();

        assertAnsweredOnce(mutations);
        assertThat(mutations).allMatch(m -> m.failure.get() instanceof IllegalStateException && m.applied.get() == 0);
        assertThat(store.writeAttempts()).isZero();
    }

    @Test
    void shouldRetryTransientFailuresWithGrowingBackoffUntilTheyHeal() {
        store.failNextRead(new InMemoryStore.Unavailable("no primary"));
        store.failNextRead(new InMemoryStore.Unavailable("no primary"));
        store.failNextWrite(new InMemoryStore.Unavailable("no primary"), false);
        List<Append> mutations = submitAll("m", 3);
        scheduler.runUntilIdle(60_000);

        assertAnsweredOnce(mutations);
        assertThat(mutations).allMatch(m -> m.completed);
        assertThat(store.state(KEY)).containsExactly("m0", "m1", "m2");
        assertThat(store.reads()).isEqualTo(4);
        // Backoffs of attempts 0, 1, 2: at least 25 + 50 + 100 ms, at most 50 + 100 + 200 ms.
        assertThat(scheduler.elapsedMillis()).isBetween(175L, 350L);
    }

    @Test
    void shouldGiveUpWithTheRetriesWhenTransientFailuresOutlastTheDeadlineAndGoOnWithTheOthers() {
        for (int i = 0; i < 100; i++) {
            store.failNextRead(new InMemoryStore.Unavailable("no primary " + i));
        }
        Append shortDeadline = new Append("short");
        Append longDeadline = new Append("long");
        committer.submit(KEY, shortDeadline, scheduler.nanoTime() + TimeUnit.SECONDS.toNanos(1));
        committer.submit(KEY, longDeadline, scheduler.nanoTime() + TimeUnit.HOURS.toNanos(1));

        scheduler.advance(1_000);
        assertThat(shortDeadline.failure.get())
                .isInstanceOf(InMemoryStore.GaveUp.class)
                .hasCauseInstanceOf(InMemoryStore.Unavailable.class);
        InMemoryStore.GaveUp gaveUp = (InMemoryStore.GaveUp) shortDeadline.failure.get();
        assertThat(gaveUp.key).isEqualTo(KEY);
        assertThat(gaveUp.retries.conflicts()).isZero();
        assertThat(gaveUp.retries.transientFailures()).isGreaterThan(1);
        assertThat(gaveUp.retries.lastConflict()).isNull();
        // Tried from its submission until the deadline, give or take the last backoff.
        assertThat(gaveUp.retries.triedNanos())
                .isBetween(TimeUnit.MILLISECONDS.toNanos(200), TimeUnit.SECONDS.toNanos(1));
        assertThat(longDeadline.answers).hasValue(0);

        scheduler.runUntilIdle(TimeUnit.HOURS.toMillis(1));
        assertThat(longDeadline.completed).isTrue();
        assertThat(store.state(KEY)).containsExactly("long");
        assertAnsweredOnce(List.of(shortDeadline, longDeadline));
    }

    @Test
    void shouldGiveUpOnConflictsAtTheDeadlineReportingOnlyConflicts() {
        for (int i = 0; i < 10_000; i++) {
            int n = i;
            store.interfereBeforeNextWrite(state -> List.of("foreign" + n));
        }
        Append m = new Append("m");
        committer.submit(KEY, m, scheduler.nanoTime() + TimeUnit.MILLISECONDS.toNanos(500));
        scheduler.runUntilIdle(10_000);

        assertThat(m.failure.get())
                .isInstanceOf(InMemoryStore.GaveUp.class)
                .hasCauseInstanceOf(InMemoryStore.Conflict.class);
        InMemoryStore.GaveUp gaveUp = (InMemoryStore.GaveUp) m.failure.get();
        assertThat(gaveUp.retries.transientFailures()).isZero();
        assertThat(gaveUp.retries.conflicts()).isEqualTo(store.writeAttempts());
        assertThat(m.answers).hasValue(1);
        assertThat(scheduler.elapsedMillis()).isLessThanOrEqualTo(500);
        assertThat(store.writeAttempts()).as("retried until the deadline").isGreaterThan(5);
        assertThat(store.state(KEY)).doesNotContain("m");
    }

    /**
     * During a failover the last attempt may well meet a conflict (a retried write of its own that was applied)
     * after many that found no primary: the give-up must hear both, not only the last.
     */
    @Test
    void shouldGiveUpWithEveryKindOfFailureItMetWhenTheLastWasAConflict() {
        for (int i = 0; i < 5; i++) {
            store.failNextRead(new InMemoryStore.Unavailable("no primary " + i));
        }
        for (int i = 0; i < 10_000; i++) {
            int n = i;
            store.interfereBeforeNextWrite(state -> List.of("foreign" + n));
        }
        Append m = new Append("m");
        committer.submit(KEY, m, scheduler.nanoTime() + TimeUnit.SECONDS.toNanos(2));
        scheduler.runUntilIdle(10_000);

        InMemoryStore.GaveUp gaveUp = (InMemoryStore.GaveUp) m.failure.get();
        assertThat(gaveUp.retries.transientFailures()).isEqualTo(5);
        assertThat(gaveUp.retries.lastTransient()).hasMessage("no primary 4");
        assertThat(gaveUp.retries.conflicts()).isGreaterThan(0);
        assertThat(gaveUp.retries.lastConflict()).isInstanceOf(InMemoryStore.Conflict.class);
        assertThat(gaveUp).hasCauseInstanceOf(InMemoryStore.Unavailable.class);
        assertThat(m.answers).hasValue(1);
    }

    /** A mutation that queued behind a retrying round reports the time since it was submitted, not only its own tries. */
    @Test
    void shouldCountTheTimeAMutationQueuedBehindARetryingRound() {
        for (int i = 0; i < 10_000; i++) {
            store.failNextRead(new InMemoryStore.Unavailable("no primary " + i));
        }
        Append first = new Append("first");
        committer.submit(KEY, first, scheduler.nanoTime() + TimeUnit.SECONDS.toNanos(10));
        scheduler.runReady();
        Append queued = new Append("queued");
        committer.submit(KEY, queued, scheduler.nanoTime() + TimeUnit.SECONDS.toNanos(10));
        scheduler.runUntilIdle(60_000);

        InMemoryStore.GaveUp gaveUp = (InMemoryStore.GaveUp) queued.failure.get();
        assertThat(gaveUp.retries.triedNanos())
                .as("its own tries took little")
                .isGreaterThan(TimeUnit.SECONDS.toNanos(5));
        assertThat(first.failure.get()).isInstanceOf(InMemoryStore.GaveUp.class);
    }

    @Test
    void shouldApplyAtMostMaxBatchMutationsPerRound() {
        List<Append> mutations = submitAll("m", GroupCommitter.MAX_BATCH + 44);
        scheduler.runReady();

        assertThat(store.history(KEY))
                .extracting(List::size)
                .containsExactly(GroupCommitter.MAX_BATCH, GroupCommitter.MAX_BATCH + 44);
        assertThat(store.state(KEY)).containsExactlyElementsOf(names(mutations));
        assertAnsweredOnce(mutations);
    }

    @Test
    void shouldFailOnlyTheMutationThatThrowsAndOnlyOnceTheOthersAreStored() {
        Append before = new Append("before");
        AtomicInteger writesWhenFailed = new AtomicInteger(-1);
        Append thrower = new Append("thrower") {
            @Override
            public Decision<List<String>> apply(List<String> state) {
                throw new IllegalArgumentException("bad mutation");
            }

            @Override
            public void fail(Exception e) {
                writesWhenFailed.set(store.writes(KEY));
                super.fail(e);
            }
        };
        Append after = new Append("after");
        submit(before);
        submit(thrower);
        submit(after);
        scheduler.runReady();

        assertThat(thrower.failure.get()).hasMessage("bad mutation");
        assertThat(writesWhenFailed).hasValue(1);
        assertThat(store.state(KEY)).containsExactly("before", "after");
        assertAnsweredOnce(List.of(before, thrower, after));
    }

    @Test
    void shouldFailCancelledMutationsWithoutApplyingThem() {
        Append cancelled = new Append("cancelled");
        cancelled.cancelled = new IllegalStateException("caller gone");
        Append kept = new Append("kept");
        submit(cancelled);
        submit(kept);
        scheduler.runReady();

        assertThat(cancelled.failure.get()).hasMessage("caller gone");
        assertThat(cancelled.applied).hasValue(0);
        assertThat(store.state(KEY)).containsExactly("kept");
    }

    @Test
    void shouldKeepKeysApart() {
        store.failNextWrite(new IllegalStateException("broken"), false);
        Append a = new Append("a");
        Append b = new Append("b");
        committer.submit("key-a", a, Long.MAX_VALUE);
        committer.submit("key-b", b, Long.MAX_VALUE);
        scheduler.runReady();

        assertThat(store.reads()).as("one round per key").isEqualTo(2);
        assertThat(a.failure.get()).hasMessage("broken");
        assertThat(b.completed).isTrue();
        assertThat(store.state("key-b")).containsExactly("b");
        assertThat(store.state("key-a")).isEmpty();
    }

    @Test
    void shouldReportEveryWriteWithTheStatesBeforeAndAfterOnceItsMutationsAreAnswered() {
        store.writeDirectly(KEY, state -> List.of("old"));
        List<Boolean> answeredWhenReported = new ArrayList<>();
        Append m = new Append("m");
        GroupCommitter<List<String>> reporting = new GroupCommitter<>(store, scheduler, (key, before, after) -> {
            answeredWhenReported.add(m.completed);
            commits.add(key + ": " + before + " -> " + after);
        });
        reporting.submit(KEY, m, Long.MAX_VALUE);
        reporting.submit(KEY, new Look("look"), Long.MAX_VALUE);
        scheduler.runReady();

        assertThat(commits).containsExactly("k: [old] -> [old, m]");
        assertThat(answeredWhenReported).containsExactly(true);
    }

    @Test
    void shouldAnswerTheOthersAndGoOnWhenACompletionThrows() {
        Append rude = new Append("rude") {
            @Override
            void complete() {
                super.complete();
                throw new IllegalStateException("listener bug");
            }
        };
        Append polite = new Append("polite");
        submit(rude);
        submit(polite);
        scheduler.runReady();
        Append next = new Append("next");
        submit(next);
        scheduler.runReady();

        assertThat(polite.completed).isTrue();
        assertThat(next.completed).isTrue();
        assertThat(store.state(KEY)).containsExactly("rude", "polite", "next");
    }

    /**
     * Two nodes, each with its own committer and pool, share one store with flaky I/O (a tenth of reads and
     * writes fail, half of the failed writes applied all the same); threads on both submit to three keys at
     * once. Every mutation must be answered exactly once and be stored exactly once, in the order its thread
     * submitted it.
     */
    @Test
    void shouldLoseAndDuplicateNothingWhenTwoNodesCommitConcurrentlyOverFlakyIo() throws Exception {
        int threadsPerNode = 4;
        int perThread = 300;
        List<String> keys = List.of("a", "b", "c");
        ScheduledThreadPoolExecutor pool = new ScheduledThreadPoolExecutor(4);
        try {
            TaskScheduler threads = new TaskScheduler() {
                @Override
                public long nanoTime() {
                    return System.nanoTime();
                }

                @Override
                public void execute(Runnable task) {
                    pool.execute(task);
                }

                @Override
                public Cancellable schedule(Runnable task, long delayMillis) {
                    var future = pool.schedule(task, delayMillis, TimeUnit.MILLISECONDS);
                    return () -> future.cancel(false);
                }
            };
            InMemoryStore<List<String>> shared = new InMemoryStore<>(List.of(), pool);
            shared.failTransientlyAtRate(0.1);
            List<GroupCommitter<List<String>>> nodes = List.of(
                    new GroupCommitter<>(shared, threads, (k, b, a) -> {}),
                    new GroupCommitter<>(shared, threads, (k, b, a) -> {}));
            List<Append> all = new CopyOnWriteArrayList<>();
            CountDownLatch answered = new CountDownLatch(nodes.size() * threadsPerNode * perThread);
            List<Thread> submitters = new ArrayList<>();
            for (int node = 0; node < nodes.size(); node++) {
                for (int t = 0; t < threadsPerNode; t++) {
                    GroupCommitter<List<String>> committer = nodes.get(node);
                    String thread = "n" + node + "t" + t;
                    submitters.add(new Thread(() -> {
                        for (int i = 0; i < perThread; i++) {
                            String key = keys.get(ThreadLocalRandom.current().nextInt(keys.size()));
                            Append m = new Append(thread + ":" + i) {
                                @Override
                                void complete() {
                                    super.complete();
                                    answered.countDown();
                                }

                                @Override
                                public void fail(Exception e) {
                                    super.fail(e);
                                    answered.countDown();
                                }
                            };
                            all.add(m);
                            committer.submit(key, m, System.nanoTime() + TimeUnit.MINUTES.toNanos(5));
                        }
                    }));
                }
            }
            submitters.forEach(Thread::start);
            for (Thread t : submitters) {
                t.join(TimeUnit.MINUTES.toMillis(1));
            }
            assertThat(answered.await(2, TimeUnit.MINUTES))
                    .as("every mutation answered")
                    .isTrue();

            assertAnsweredOnce(all);
            assertThat(all).allMatch(m -> m.completed && m.failure.get() == null);
            List<String> stored =
                    keys.stream().flatMap(k -> shared.state(k).stream()).toList();
            assertThat(stored).doesNotHaveDuplicates().containsExactlyInAnyOrderElementsOf(names(all));
            for (String key : keys) {
                List<String> state = shared.state(key);
                for (int node = 0; node < nodes.size(); node++) {
                    for (int t = 0; t < threadsPerNode; t++) {
                        String thread = "n" + node + "t" + t + ":";
                        List<Integer> order = state.stream()
                                .filter(n -> n.startsWith(thread))
                                .map(n -> Integer.parseInt(n.substring(thread.length())))
                                .toList();
                        assertThat(order).as("order of %s in %s", thread, key).isSorted();
                    }
                }
            }
        } finally {
            pool.shutdownNow();
            assertThat(pool.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
        }
    }
}
